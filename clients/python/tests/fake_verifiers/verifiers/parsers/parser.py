"""TEST FAKE of verifiers/parsers/parser.py @ v0.1.12: the default ``Parser``, which a Rubric registers as
the ``parser`` class object every reward function may ask for."""


class Parser:
    def parse(self, text: str) -> str:
        return text
