"""The regression gate: read run records, compare with a baseline, decide a verdict under a policy."""
