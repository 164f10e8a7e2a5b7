import heapq


def build_order(dependencies):
    tasks = set(dependencies)
    for needs in dependencies.values():
        tasks.update(needs)
    waiting = {task: 0 for task in tasks}
    unlocks = {task: [] for task in tasks}
    for task, needs in dependencies.items():
        for need in set(needs):
            waiting[task] += 1
            unlocks[need].append(task)
    ready = [task for task, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        task = heapq.heappop(ready)
        order.append(task)
        for follower in unlocks[task]:
            waiting[follower] -= 1
            if waiting[follower] == 0:
                heapq.heappush(ready, follower)
    if len(order) != len(tasks):
        raise ValueError("dependency cycle")
    return order
