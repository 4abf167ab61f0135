"""Mind Bluff (seed 001): the dango-eating bluff series with a hidden count, secret eats,
Believe/Doubt with one-bit TRUE/BLUFF proofs, honesty debt and All done.

Modules:

* ``rules``   — the public state machine (``MindBluffRules``), typed actions, phases,
  public events, ``PACING`` (the seed's pauses as data). No I/O, crypto or randomness.
* ``bowl``    — the hidden count natively (the arena's stand-in for the proven referee).
* ``referee`` — ``ProvenReferee`` (holds the committed count; every verdict a proof),
  the seats' own proofs, and ``VerdictChecker`` (what each client and the offline
  verifier check). Its ``VerdictChecker`` is the executable list of which action carries
  which proof against which commitments.
* ``review``  — reveals, the pure reveal check, the review and Truth Replay as data.
* ``session`` — an in-process proven series: the reference flow for the engine's table.
* ``bot``, ``arena`` — house and random-legal policies, personas, pure-rules win rates.
* ``text``, ``RULES.md`` — the rules in plain words; each event in words.

Which action carries which proof (party: statement, the publics the table fixes):

==================  =========  =================================================================
action              prover     statement and publics
==================  =========  =================================================================
start_game (1, 2)   referee    value.counter_is.v1: target 30, equal 1 → the start commitment
start_game (3)      referee    value.start_draw.v1: the header's referee commitment, both seats'
                               revealed entropies, coin = ``first`` → the start commitment
eat                 seat       value.choice.v1: claim 0, verdict 0 (range) → the choice commitment
eat_verdict         referee    value.counter_step.v1: the current count and choice commitments,
                               ate_last → the next count commitment
claim (proven)      seat       value.choice.v1: the choice commitment, claim = amount, verdict 1
doubt_verdict       referee    value.choice.v1: the choice commitment, the claim, verdict
all_done_verdict    referee    value.counter_is.v1: the current count commitment, target 1, equal
believe, doubt,     —          no proof (a doubt of a forced-honest claim is settled TRUE by the
all_done, consent              claim's own proof)
==================  =========  =================================================================
"""
