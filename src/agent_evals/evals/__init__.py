"""Code-first evals: the ``@eval`` decorator, ``EvalContext``, evaluators, discovery and execution."""
