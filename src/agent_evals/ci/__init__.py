"""The `ci` and `publish` flows: run the pull request's suites, compare, decide, publish."""
