"""Analysis of stored results: cell summaries, threshold fits and the result tables."""
