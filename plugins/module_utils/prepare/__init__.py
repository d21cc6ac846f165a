"""Host preparation: DOCA and its kernel fix, NIC firmware by PSID, boot arguments, SR-IOV and switchdev, hugepages, DPDK binding, DDP profiles."""
