"""YAML benchmarks: schema, loader with file:// composition, success checkers, agents, runner, results."""
