"""GitHub integration: Actions settings, the REST client, baselines, comments and workflow I/O."""
