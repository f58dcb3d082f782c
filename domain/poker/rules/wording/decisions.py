"""SP-4's decisions where the rule is silent (docs/wording.md): the hand-made lists of codes and
words the lexicon adds to, or keeps from, what pycountry, CLDR and pymorphy3 give."""

from __future__ import annotations

# ISO 4217 codes that are not money (precious metals, units of account, testing, "no currency")
_NOT_MONEY_CODES = frozenset("XAG XAU XPD XPT XBA XBB XBC XBD XDR XSU XUA XAD XTS XXX XEU XFO XFU XRE".split())
# codes whose CLDR names are units or an everyday word, not a currency's name ("Zimbabwean gold")
_UNNAMED_CODES = _NOT_MONEY_CODES | frozenset("CLF COU ECV MXV UYW ZWG".split())
# codes a club writes that ISO 4217 no longer lists, or never did
_EXTRA_CODES = frozenset("RUR BYR USDT BTC".split())
# codes that are ordinary English words or abbreviations: money only in capitals after an amount
_WORD_CODES = frozenset("ALL AMD BAM BOB CAD COP CUP GEL MAD MOP PEN PHP RON SOS TOP TRY".split())

# currency names (CLDR heads) that are also everyday words or names: money only after an amount
_EN_EVERYDAY = frozenset(
    "won real reals mark marks pound pounds sol soles rand rands kip kips dong lev leva lei leu ley som "
    "soms tala sucre sucres zaire zaires dram drams dobra dobras kina pula pulas colon colones colons "
    "cordoba cordobas balboa balboas bolivar bolivars guarani guaranis lempira lempiras austral australs "
    "leone leones quetzal quetzals cupon lari laris lats lati loti lotis kuna kunas inti intis".split()
)
_RU_EVERYDAY = frozenset(
    "марка фунт франк лира крона лев лей сом реал рэнд ранд вона кип сум драм добра кина пула тала вату "
    "лари колон кордоба бальбоа боливар гуарани лемпира аустрал леоне кетсаль купон талон лат лит соль "
    "заир инти куна така".split()
)

# colloquial money a club writes, beyond CLDR's currency names: word -> the currency it names
# ("" for money in general)
_RU_MONEY_LEMMAS: dict[str, str] = {
    **dict.fromkeys("рублик рублишко рублёвый".split(), "рубль"),
    **dict.fromkeys("копейка копеечка".split(), "копейка"),
    # the minor units a club writes in Russian, as "cents", "pence" count in English
    **dict.fromkeys("цент евроцент".split(), "цент"),
    "пенс": "пенс",
    "сантим": "сантим",
    "грош": "грош",
    **dict.fromkeys("бакс долларовый".split(), "доллар"),
    "еврик": "евро",
    "стерлинг": "фунт стерлингов",
    "червонец": "рубль",
    "целковый": "рубль",
    **dict.fromkeys(
        "деньга деньги денежка деньжата деньжищи денежный денежно наличные наличный наличка безнал "
        "безналичный кэш кеш кэшбэк кешбэк кэшбек кешбек бабло валюта валютный купюра банкнота".split(),
        "",
    ),
}
_RU_MONEY_WORDS: dict[str, str] = {  # forms the dictionary does not know, and abbreviations
    "руб": "рубль",
    "долл": "доллар",
    "у.е": "условная единица",
    **dict.fromkeys("грн гривня гривни гривне гривню гривней гривень".split(), "гривна"),
    **dict.fromkeys("нал нала налу налом налы лавэ лаве".split(), ""),
    "копек": "копейка",  # «50 копек», the colloquial genitive plural
    **{  # the tenge's minor unit, which the dictionary reads as a name
        f"{stem}{ending}": "тиын"
        for stem in ("тиын", "тийын", "тыйын")
        for ending in ("", "а", "у", "ом", "е", "ы", "ов", "ам", "ами", "ах")
    },
}
_RU_AFTER_AMOUNT: dict[str, str] = {  # money only right after an amount
    **dict.fromkeys("р тр т.р кр".split(), "рубль"),
    "коп": "копейка",
    "тг": "тенге",
    "пенни": "пенс",  # a given name too
}
_EN_MONEY_WORDS: dict[str, str] = dict.fromkeys(
    "cash money moneys monies monetary cashback currency currencies banknote banknotes greenback "
    "greenbacks bitcoin bitcoins".split(),
    "",
)
_EN_AFTER_AMOUNT: dict[str, str] = {
    **dict.fromkeys("buck bucks".split(), "dollar"),
    **dict.fromkeys("cent cents dime dimes".split(), "cent"),
    **dict.fromkeys("penny pennies pence p quid".split(), "pound"),
}
# English cardinal number words: an amount written in words counts as one in digits ("fifty
# quid", "twenty-five cents"); Russian number words are pymorphy3's NUMR
_EN_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred "
    "hundreds thousand thousands million millions billion billions dozen dozens".split()
)
# multipliers that make an amount of a number: 10к, 5 тыс., 2 млн, 3k
_MULTIPLIERS = frozenset(
    "к k kk кк т тыс тыщ тысяча тысяч тысячи млн млрд миллион миллиард mln bn thousand thousands "
    "million millions".split()
)
