"""The package version, in a module of its own so any layer can read it without loading the facade."""

__version__ = "0.1.0"
