"""What a reader installs to check a bundle: the harness wheel that made the runs and a lock of their environment."""
