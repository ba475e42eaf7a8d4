"""The membership game against a synthesizer (the distinguishing game of Stadler et al. 2022, TAPAS, Annamalai
et al. 2024).

A challenger draws a training set from a population, flips a fair coin per
target for whether the target is in it, runs the synthesizer and releases
its output; an adversary who knows the population, the targets and the
synthesizer scores each target's membership from the output. Modules, in
the order a game runs:

- :mod:`.targets`: which records are attacked (the most isolated, a few at random, named ids);
- :mod:`.rounds`: one round (training set, coins, synthesizer run, features), through the executor;
- :mod:`.builtin_rounds`: a built-in synthesizer's round on the encoded records (the same draws, no DataFrames);
- :mod:`.features`: what the adversary reads from one synthetic set about one target;
- :mod:`.attacks`: the no-training attacks and the shadow-model classifier, fitted and scored on disjoint rounds;
- :mod:`.rates`: per-target AUC, TPR at low FPR and the advantage, with intervals.
"""
