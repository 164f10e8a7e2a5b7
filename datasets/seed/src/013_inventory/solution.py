class Inventory:
    def __init__(self):
        self._stock = {}

    @staticmethod
    def _key(item):
        return item.strip().lower()

    def add(self, item, quantity=1):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        key = self._key(item)
        self._stock[key] = self._stock.get(key, 0) + quantity

    def remove(self, item, quantity=1):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        key = self._key(item)
        available = self._stock.get(key, 0)
        if quantity > available:
            raise KeyError(f"not enough {key}: have {available}, need {quantity}")
        if quantity == available:
            del self._stock[key]
        else:
            self._stock[key] = available - quantity

    def count(self, item):
        return self._stock.get(self._key(item), 0)

    def total_units(self):
        return sum(self._stock.values())

    def low_stock(self, threshold):
        low = [(quantity, name) for name, quantity in self._stock.items() if quantity < threshold]
        return [name for quantity, name in sorted(low)]
