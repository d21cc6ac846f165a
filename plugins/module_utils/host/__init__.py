"""The host's shared base: the one command runner, the one validation vocabulary, files, network namespaces,
the emulated-host guard, CPU lists, the inventory's placeholders."""
