"""The instructor tab's logic: tokens, index statistics, rebuilds, batch tests, course files,
and the learner feedback and content-gap logs."""
