"""The topology: the OVN Northbound declaration (schema, plan, the one transaction), the virtual lab's namespaces and wires, their probes."""
