"""The drawing's width and margins, and the colours every chart shares."""

from __future__ import annotations

W = 560


RIGHT = 16


#: Okabe and Ito's colour-blind-safe palette (blue, orange, bluish green, reddish purple, vermillion, sky
#: blue, black): each pair stays apart for deuteranopia, protanopia and tritanopia, and in grey print.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000")


#: Dash pattern per overlaid histogram series: the outlines tell the series apart where fills overlap.
DASHES = ("", "6 3", "2 2", "8 3 2 3")


#: Colours of the verdict zones in the threshold gauge.
ZONES = {"pass": "#d8eedd", "warn": "#f8e7bf", "fail": "#f6d0d5"}
