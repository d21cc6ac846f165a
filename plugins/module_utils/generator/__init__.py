"""The traffic generators' host side: the TRex (or softgen) server configuration, iperf3."""
