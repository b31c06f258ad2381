"""Where commands run and files are read: the local machine (optionally under a root) and the `pi` container."""
