"""Parsers of tool outputs, one file per tool (ethtool, flint, mlxfwmanager, devlink, grubby, ip, ovs-appctl, ovs-dpctl, ovs-ofctl, OVSDB JSON)."""
