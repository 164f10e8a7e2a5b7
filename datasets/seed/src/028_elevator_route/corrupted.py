def elevator_route(start, requests, going_up=False):
    floors = sorted(set(requests))
    above = [floor for floor in floors if floor > start]
    below = [floor for floor in floors if floor < start]
    route = [start] if start in floors else []
    if going_up:
        route += above + below[::-1]
    else:
        route += below[::-1] + above
    return route
