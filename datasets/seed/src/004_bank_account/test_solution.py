import unittest


class TestCases(unittest.TestCase):
    def test_deposit_and_withdraw_return_balance(self):
        account = BankAccount("Ana", 100)
        self.assertEqual(account.deposit(50), 150)
        self.assertEqual(account.withdraw(30), 120)
        self.assertEqual(account.balance, 120)

    def test_insufficient_funds_leave_account_unchanged(self):
        account = BankAccount("Ben", 20)
        with self.assertRaises(ValueError):
            account.withdraw(21)
        self.assertEqual(account.balance, 20)
        self.assertEqual(account.transactions(), [])
        self.assertEqual(account.withdraw(20), 0)

    def test_overdraft_limit_is_inclusive(self):
        account = BankAccount("Cy", 10, overdraft_limit=40)
        self.assertEqual(account.withdraw(50), -40)
        with self.assertRaises(ValueError):
            account.withdraw(1)

    def test_invalid_amounts(self):
        with self.assertRaises(ValueError):
            BankAccount("Dee", -1)
        account = BankAccount("Dee")
        self.assertEqual(account.deposit(1), 1)
        self.assertEqual(account.withdraw(1), 0)
        for bad in (0, -5):
            with self.assertRaises(ValueError):
                account.deposit(bad)
            with self.assertRaises(ValueError):
                account.withdraw(bad)

    def test_transfer_records_both_sides(self):
        source, target = BankAccount("Eve", 300), BankAccount("Fay")
        target.deposit(7)
        source.transfer(target, 120)
        self.assertEqual((source.balance, target.balance), (180, 127))
        self.assertEqual(source.transactions(), [("transfer_out", 120)])
        self.assertEqual(target.transactions(), [("deposit", 7), ("transfer_in", 120)])

    def test_transactions_returns_a_copy(self):
        account = BankAccount("Gus")
        account.deposit(5)
        history = account.transactions()
        history.append(("deposit", 1000))
        history.clear()
        self.assertEqual(account.transactions(), [("deposit", 5)])

    def test_statement_lists_movements(self):
        account = BankAccount("Hal", 10)
        account.deposit(25)
        account.withdraw(5)
        account.transfer(BankAccount("Ivy"), 10)
        self.assertEqual(account.statement(), "Hal: 20\n+25 deposit\n-5 withdraw\n-10 transfer_out")
