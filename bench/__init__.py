"""`make bench`: every benchmark runs two ways side by side in one run; medians and their ratio."""
