"""The response cache of model calls (``--cache record|replay|off``): a folder store and the framework hooks."""
