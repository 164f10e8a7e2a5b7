import sys


def main():
    lines = sys.stdin.read().splitlines()
    threshold = int(lines[0])
    stock = {}
    for line in lines[1:]:
        parts = line.split()
        if len(parts) != 2:
            continue
        name, quantity = parts[0].lower(), int(parts[1])
        stock[name] = stock.get(name, 0) + quantity
    short = [(threshold - quantity, name) for name, quantity in stock.items() if quantity < threshold]
    if not short:
        print("all stocked")
        return
    for need, name in sorted(short, key=lambda item: (-item[0], item[1])):
        print(f"{name} needs {need}")


main()
