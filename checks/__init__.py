"""Read-only preflight checks: questions asked of a Host, each answered with a CheckResult."""
