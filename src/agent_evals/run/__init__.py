"""A run: plan, shards, the session over eval files and benchmarks, and the record builder."""
