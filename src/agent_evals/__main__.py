"""``python -m agent_evals``: the same command line as ``agent-evals``."""

from agent_evals.cli.main import main

if __name__ == "__main__":
    main()
