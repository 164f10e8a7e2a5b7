class BankAccount:
    def __init__(self, owner, balance=0, overdraft_limit=0):
        if balance < 0:
            raise ValueError("opening balance cannot be negative")
        self.owner = owner
        self.balance = balance
        self.overdraft_limit = overdraft_limit
        self._history = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self.balance += amount
        self._history.append(("deposit", amount))
        return self.balance

    def withdraw(self, amount):
        if amount <= 0:
            raise ValueError("withdrawal must be positive")
        if self.balance - amount < -self.overdraft_limit:
            raise ValueError("insufficient funds")
        self.balance -= amount
        self._history.append(("withdraw", amount))
        return self.balance

    def transfer(self, other, amount):
        self.withdraw(amount)
        other.deposit(amount)
        self._history[-1] = ("transfer_out", amount)
        other._history[-1] = ("transfer_in", amount)

    def transactions(self):
        return self._history

    def statement(self):
        lines = [f"{self.owner}: {self.balance}"]
        for kind, amount in self._history:
            sign = "+" if kind in ("deposit", "transfer_in") else "-"
            lines.append(f"{sign}{amount} {kind}")
        return "\n".join(lines)
