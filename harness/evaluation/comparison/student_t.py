"""Student's t distribution: the two-sided and one-sided tail probabilities, through the regularized incomplete beta
function.

P(|T| >= |t|) for T with df degrees of freedom is I_x(df / 2, 1 / 2) with x = df / (df + t^2). The incomplete
beta function is evaluated by its continued fraction (modified Lentz), on the side of the symmetry
I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges fast; 1 - x is computed as t^2 / (df + t^2), so
no precision is lost to cancellation.
"""

import math

_TINY = 1e-300
_EPSILON = 4e-16
_MAX_TERMS = 100_000


def _continued_fraction(a: float, b: float, x: float) -> float:
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) >= _TINY else _TINY)
    result = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                          -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) >= _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) >= _TINY else _TINY
            step = d * c
            result *= step
        if abs(step - 1.0) < _EPSILON:
            return result
    raise ArithmeticError(f"the incomplete beta continued fraction did not converge (a={a}, b={b}, x={x})")


def regularized_beta(a: float, b: float, x: float, one_minus_x: float) -> float:
    """I_x(a, b), given x and 1 - x separately (each computed without cancellation by the caller)."""
    if x <= 0.0:
        return 0.0
    if one_minus_x <= 0.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log(one_minus_x))
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _continued_fraction(a, b, x) / a
    return 1.0 - front * _continued_fraction(b, a, one_minus_x) / b


def two_sided_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom (df >= 1)."""
    if df < 1:
        raise ValueError(f"Student's t needs at least one degree of freedom, not {df}")
    if math.isinf(t):
        return 0.0
    square = t * t
    return min(1.0, regularized_beta(df / 2.0, 0.5, df / (df + square), square / (df + square)))


def one_sided_p(t: float, df: int, *, greater: bool) -> float:
    """P(T >= t) when `greater`, else P(T <= t), for Student's t with `df` degrees of freedom: half the two-sided tail
    on the side t lies, the rest of the distribution on the other."""
    tail = two_sided_p(t, df) / 2.0
    return tail if (t > 0.0) == greater or t == 0.0 else 1.0 - tail
