"""Monetary wording (RULES SP-4): prize lines and mystery-bounty descriptions never name money.

How a line is checked (docs/wording.md tells the why and the decisions):

1. Normalised: default-ignorable characters (zero-width spaces and joiners, soft hyphens, bidi
   controls, variation selectors) removed; Unicode NFKC (fullwidth «ＵＳＤ» is USD, «5 000» with a
   figure space is 5 000); combining marks (stress marks, accents) removed, except the marks that
   make the Russian letters «й» and «ё»; every kind of space is one space.
2. Split into tokens: amounts (digits with group separators, «10к», «5 тыс.»), words (letters, with
   inner hyphens and apostrophes; the digits 0 1 3 6 between letters are read as the letters they
   look like), currency signs, the rest.
3. Look-alike letters are read in the line's script through Unicode's confusables table (the
   `confusable-homoglyphs` package): a word mixing Latin and Cyrillic, or holding letters outside
   the two alphabets, is also read wholly as Latin and wholly as Cyrillic; a word of the other
   script than the rest of the line is also read in the line's script.
4. Each reading is matched as a whole word: a Russian word by its lemmas (pymorphy3 with its
   Russian dictionary), an English word by the inflections CLDR gives (Babel). Money is: a currency
   sign (Unicode category Sc, and every symbol CLDR knows in Russian and English); a currency code
   (ISO 4217 from pycountry) in capitals, or in any case next to an amount; a currency name CLDR
   knows in Russian or English; a colloquial money word (`_RU_MONEY_LEMMAS`, `_EN_MONEY_WORDS`).
   Names that are also everyday words («марка», «лев», "pound", "real", "won"; `_RU_EVERYDAY`,
   `_EN_EVERYDAY`), the one-letter rouble «р» and codes that are English words (ALL, TOP, CUP…;
   `_WORD_CODES`) count only right after an amount ("500 ALL", «5 марок», «10к р»).

The modules, in the order a line goes through them: `normalisation` (1), `classify` (2 to 4, over
the `lexicon` built once, with the hand-made lists of `decisions`), `check` (the verdict and its
seal: the entry points). Names with a leading underscore are the package's own, shared between its
modules; the rest of the code imports `check`.

The database cannot run this (pymorphy3 lives in Python), so every accepted line carries the
domain's verdict, `wording_seal(text)`, which only an accepted text gets; the tables refuse a line
without its seal (domain/poker/tables/knockouts_places.py).
"""
