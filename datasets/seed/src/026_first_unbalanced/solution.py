OPENERS = {")": "(", "]": "[", "}": "{"}


def first_unbalanced(text):
    stack = []
    for index, char in enumerate(text):
        if char in "([{":
            stack.append((char, index))
        elif char in OPENERS:
            if not stack or stack[-1][0] != OPENERS[char]:
                return index
            stack.pop()
    if stack:
        return stack[0][1]
    return -1
