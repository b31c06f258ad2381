"""Provides the `pi` container's life through the Docker SDK: desired config, pull, create/reuse, image reuse."""
