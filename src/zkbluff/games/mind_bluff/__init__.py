"""Mind Bluff (seed 001): the dango-eating bluff series with a hidden count, secret eats,
Believe/Doubt with one-bit TRUE/BLUFF proofs, honesty debt and All done, on the match
engine (``zkbluff play|demo|rules mind-bluff``; docs/mind-bluff.md).

Modules:

* ``rules``   — the public state machine (``MindBluffRules``), typed actions, phases,
  public events, ``PACING`` (the seed's pauses as data). No I/O, crypto or randomness.
* ``spec``    — ``MindBluffSpec``, the engine's spec: the referee party holds the count,
  the seats their choices; the header carries the seats' draw-entropy commitments.
* ``referee`` — ``VerdictChecker`` (the table's ledger: which proof each line owes and
  what it pins; the spec's demand/record, run by every party's view and the offline
  verifier), ``RefereeSecrets`` and ``referee_move`` (every verdict's proof inputs, from
  the referee's secrets and the public lines), the sealed channel for choices.
* ``review``  — reveals, the pure reveal check, the review and Truth Replay as data.
* ``bowl``    — the hidden count natively (the pure-rules arena's stand-in).
* ``bot``, ``arena`` — house and random-legal policies, personas, pure-rules win rates.
* ``text``, ``RULES.md`` — the rules in plain words; each line in words; the prompts.

Which line carries which proof (party: statement, the publics the table pins):

==================  =========  =================================================================
line                prover     statement and publics
==================  =========  =================================================================
start_game (1, 2)   referee    value.counter_is.v1: target 30, equal 1 → the start commitment
                               (game 1's line also publishes the referee's draw commitment and
                               its channel key)
reveal_entropy      —          (before game 3) the seat's entropy must open its commitment in
                               the header
start_game (3)      referee    value.start_draw.v1: the referee's draw commitment, both seats'
                               revealed entropies, coin = ``first`` → the start commitment
eat                 seat       value.choice.v1: claim 0, verdict 0 (range) → the choice
                               commitment; the opening rides sealed to the referee
eat_verdict         referee    value.counter_step.v1: the current count and choice commitments,
                               ate_last → the next count commitment
claim (in debt)     seat       value.choice.v1: the choice commitment, claim = amount, verdict 1
doubt_verdict       referee    value.choice.v1: the choice commitment, the claim, verdict
all_done_verdict    referee    value.counter_is.v1: the current count commitment, target 1, equal
reveal              —          (after each game) opens every commitment, agrees with every
                               verdict, and its review is the one they give (``check_reveal``)
believe, doubt,     —          no proof (a doubt of a forced-honest claim is settled TRUE by the
all_done, consent              claim's own proof)
==================  =========  =================================================================
"""
