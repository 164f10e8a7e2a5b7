def plurality_winner(ballots):
    tally = {}
    for ballot in ballots:
        name = ballot.strip().lower()
        if not name:
            tally[name] = tally.get(name, 0) + 1
    if not tally:
        return None
    best = None
    for name in sorted(tally):
        if best is None or tally[name] > tally[best]:
            best = name
    return best.title(), tally[best]
