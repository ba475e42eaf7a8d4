"""Reports: report.json is built once (``build``); HTML and Markdown are
rendered from that JSON alone (``render``)."""
