"""The benchmarks behind ``lab bench TARGET``: each module prints its figures side by side
in one run (speed targets live here, never in timed tests).

``sim`` (hands per second of the fast engine against the rules engine), ``cardplay``
(card-play solves against their memory-traffic bound), ``full`` (one full-game iteration),
``score`` (leak measurement, one at a time against batched), ``policy`` (the stored
policies: size, load time, lookup latency, exploitability) and ``dashboards`` (first
render and redraw times in chromium against Voila).
"""
