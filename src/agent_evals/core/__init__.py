"""Pure evaluation logic: types, the scorer protocol, the runner. No CLI, templates, network or disk."""
