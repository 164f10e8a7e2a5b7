import sys
from fractions import Fraction


def evaluate(tokens):
    stack = []
    for token in tokens:
        if token in ("+", "-", "*", "/"):
            if len(stack) < 2:
                return None
            right = stack.pop()
            left = stack.pop()
            if token == "+":
                stack.append(left + right)
            elif token == "-":
                stack.append(left - right)
            elif token == "*":
                stack.append(left * right)
            elif right == 0:
                return None
            else:
                stack.append(left / right)
        else:
            try:
                stack.append(Fraction(int(token)))
            except ValueError:
                return None
    return stack[0] if len(stack) == 1 else None


def main():
    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        result = evaluate(tokens)
        print("error" if result is None else result)


main()
