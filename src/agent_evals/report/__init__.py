"""Reports rendered from a comparison or a run: Markdown, JUnit XML, JSON, HTML and terminal text."""
