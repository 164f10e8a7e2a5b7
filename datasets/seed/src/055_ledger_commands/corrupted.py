import sys


def main():
    accounts = {}
    for raw in sys.stdin:
        parts = raw.split()
        if not parts:
            continue
        command, name = parts[0], parts[1]
        if command == "open":
            if name in accounts:
                print("error: account exists")
            else:
                accounts[name] = 0
            continue
        if name not in accounts:
            print(f"error: unknown account {name}")
            continue
        if command == "deposit":
            accounts[name] += int(parts[2])
        elif command == "withdraw":
            amount = int(parts[2])
            if amount >= accounts[name]:
                print("error: insufficient funds")
            else:
                accounts[name] -= amount
        elif command == "balance":
            print(f"{name}: {accounts[name]}")
    print(f"total: {sum(accounts.values())}")


main()
