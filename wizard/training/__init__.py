"""Reading a running training job: its log lines, metrics and health."""
