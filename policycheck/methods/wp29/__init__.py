"""The three criteria of the Article 29 Working Party (Opinion 05/2014 on anonymisation),
made measurable for synthetic data by Giomi et al. (anonymeter, PETS 2023).

Each criterion is an attack run three times: the main attack on original
records, a baseline attack that guesses at random, and the same attack on
holdout (control) records that the synthesizer never saw. The risk is the
main attack's success beyond the control's, normalised:
``(main - control) / (1 - control)`` (:mod:`.rates`).
"""
