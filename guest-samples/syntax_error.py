# A model's typo.
# expect: SYNTAX_ERROR
def f(:
    return 1
