"""The run record's one home: schema and ids, reading, writing, merging, views and the trial writer."""
