"""Status words, section headings and status columns of memory written in German, French,
Spanish, Portuguese, Russian, Korean and Vietnamese are lexicon data, as English, Chinese and
Japanese are: a task still under "Nächste Schritte" (or marked "(à faire)") and done in another
file or section ("Export PDF des rapports — terminé", a status column reading "готово") is a
`status_conflict`. Words of those languages are read as words: "tâche" is not "t" and "che",
"статистика" is "статистикой" in another case, "déterminé" holds no "terminé", and "nicht
erledigt" is not done."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import findings_of, write


class Language(NamedTuple):
    task: str  # the work still to do
    thing: str  # what that work makes, named when it is done
    next_steps: str  # a heading of work still to do
    done: str
    pending: str
    status: str  # a status column's name
    not_done: str  # the done word denied
    other: str  # another thing done


LANGUAGES = {
    "de": Language("PDF-Export der Berichte hinzufügen", "PDF-Export der Berichte", "Nächste Schritte", "erledigt",
                   "offen", "Status", "nicht erledigt", "Anmeldung per Passkey"),
    "fr": Language("Ajouter l'export PDF des rapports", "Export PDF des rapports", "Prochaines étapes", "terminé",
                   "à faire", "Statut", "non terminé", "Connexion par passkey"),
    "es": Language("Añadir la exportación PDF de los informes", "Exportación PDF de los informes", "Próximos pasos",
                   "completado", "pendiente", "Estado", "no completado", "Inicio de sesión con passkey"),
    "pt": Language("Adicionar a exportação PDF dos relatórios", "Exportação PDF dos relatórios", "Próximos passos",
                   "concluído", "pendente", "Situação", "não concluído", "Login com passkey"),
    "ru": Language("Добавить экспорт отчётов в PDF", "Экспорт отчётов в PDF", "Следующие шаги", "готово",
                   "в планах", "Статус", "не готово", "Вход по passkey"),
    "ko": Language("보고서 PDF 내보내기 추가", "보고서 PDF 내보내기", "다음 단계", "완료", "예정", "상태", "",
                   "패스키 로그인"),
    "vi": Language("Thêm xuất PDF cho báo cáo", "Xuất PDF cho báo cáo", "Các bước tiếp theo", "hoàn thành",
                   "chưa bắt đầu", "Trạng thái", "chưa hoàn thành", "Đăng nhập bằng passkey"),
}

DONE = {  # the work said done, three ways
    "after a dash": lambda lang, thing: f"- {thing} — {lang.done}\n",
    "in parentheses": lambda lang, thing: f"- {thing} ({lang.done})\n",
    "in a status column": lambda lang, thing: f"| Feature | {lang.status} |\n|---|---|\n| {thing} | {lang.done} |\n",
}
PENDING = {  # the work still to do, two ways
    "under next steps": lambda lang: f"## {lang.next_steps}\n\n- {lang.task}\n",
    "marked pending": lambda lang: f"## Notes\n\n- {lang.task} ({lang.pending})\n",
}
SHAPES = {
    "two files of a memory bank": lambda pending, done: {"memory-bank/activeContext.md": f"# Context\n\n{pending}",
                                                         "memory-bank/progress.md": f"# Progress\n\n## Log\n\n{done}"},
    "two sections of a file": lambda pending, done: {"STATUS.md": f"# Status\n\n{pending}\n## Log\n\n{done}"},
}


def _store(root: Path, shape: str, pending: str, done: str) -> None:
    for name, text in SHAPES[shape](pending, done).items():
        write(root / name, text)


@pytest.mark.parametrize(("language", "done", "pending", "shape"), list(product(LANGUAGES, DONE, PENDING, SHAPES)))
def test_work_pending_in_one_place_and_done_in_another_is_a_status_conflict(
        tmp_path: Path, language: str, done: str, pending: str, shape: str) -> None:
    lang = LANGUAGES[language]
    _store(tmp_path, shape, PENDING[pending](lang), DONE[done](lang, lang.thing))
    found = findings_of(tmp_path, "status_conflict")
    assert len(found) == 1, found
    assert found[0]["related"], found[0]


@pytest.mark.parametrize(("language", "shape"), list(product([k for k, v in LANGUAGES.items() if v.not_done], SHAPES)))
def test_the_done_word_denied_is_no_conflict(tmp_path: Path, language: str, shape: str) -> None:
    lang = LANGUAGES[language]
    _store(tmp_path, shape, PENDING["under next steps"](lang), f"- {lang.thing} — {lang.not_done}\n")
    assert findings_of(tmp_path, "status_conflict") == []


@pytest.mark.parametrize(("language", "shape"), list(product(LANGUAGES, SHAPES)))
def test_another_thing_done_is_no_conflict(tmp_path: Path, language: str, shape: str) -> None:
    lang = LANGUAGES[language]
    _store(tmp_path, shape, PENDING["under next steps"](lang), DONE["after a dash"](lang, lang.other))
    assert findings_of(tmp_path, "status_conflict") == []


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_word_that_holds_a_status_word_gives_no_status(tmp_path: Path, shape: str) -> None:
    lang = LANGUAGES["fr"]
    _store(tmp_path, shape, PENDING["under next steps"](lang), f"- Format déterminé : {lang.thing}\n")
    assert findings_of(tmp_path, "status_conflict") == []


@pytest.mark.parametrize(("heading", "task", "label", "expected"), [
    ("Prochaines étapes", "Correction des noms de colonnes", "Tâche terminée : correction des noms de colonnes", 1),
    ("Nächste Schritte", "Korrektur der Spaltennamen", "Aufgabe erledigt: Korrektur der Spaltennamen", 1),
    ("Prochaines étapes", "Correction des noms de colonnes", "Tâche non terminée : correction des noms de colonnes", 0),
    ("Nächste Schritte", "Korrektur der Spaltennamen", "Aufgabe nicht erledigt: Korrektur der Spaltennamen", 0),
])
def test_a_short_label_that_ends_in_a_status_word_gives_it(tmp_path: Path, heading: str, task: str, label: str,
                                                           expected: int) -> None:
    write(tmp_path / "memory-bank/activeContext.md", f"# Context\n\n## {heading}\n\n- {task}\n")
    write(tmp_path / "memory-bank/progress.md", f"# Progress\n\n## Log\n\n- {label}\n")
    assert len(findings_of(tmp_path, "status_conflict")) == expected
