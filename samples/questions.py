"""The example question file for the sample documents (samples/documents.py).

Every expected answer is computed from the same data the sample documents are generated from,
so the file stays right when the samples change. `python -m samples` writes it next to the documents;
the Evaluate page offers it for download.
"""
from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from core.evaluate.questions import EvalQuestion
from samples import documents

FILENAME = "sample_questions.jsonl"


def _receipt(number: str) -> tuple[int, tuple]:
    """(page, receipt) of a receipt in Receipts_2024.pdf: one receipt a page, in order."""
    for page, receipt in enumerate(documents.RECEIPT_DATA, start=1):
        if receipt[1] == number:
            return page, receipt
    raise KeyError(number)


def _panel(model: str) -> tuple[int, dict]:
    """(page, panel) in Panel_Spec_Sheets.pdf: one panel a page, in order."""
    for page, panel in enumerate(documents.PANELS, start=1):
        if panel["model"] == model:
            return page, panel
    raise KeyError(model)


def sample_questions() -> list[EvalQuestion]:
    handbook, specs, receipts = documents.HANDBOOK, documents.SPEC_SHEETS, documents.RECEIPTS
    first_page, first = _receipt("QF-24-0117")
    quickfit = [(page, r) for page, r in enumerate(documents.RECEIPT_DATA, start=1) if r[0] == "QuickFit Tyres"]
    quickfit_total = sum((documents.receipt_totals(r[4])[2] for _, r in quickfit), Decimal("0"))
    hx450_page, hx450 = _panel("HX-450")
    hx400_page, hx400 = _panel("HX-400")
    bifacial_page, bifacial = _panel("HX-550 Bifacial")
    acme_2024 = [row for row in documents.order_rows() if row[2] == "ACME" and row[1].startswith("2024")]
    sunpeak_width = next(row[1] for row in documents.SUNPEAK_SHEET if row[0] == "SP-M 0.43")
    return [
        EvalQuestion("warranty-years", "How long is the power output warranty on Helios panels?",
                     "25 years", handbook, (4,)),
        EvalQuestion("warranty-after-25", "How much of its nominal power does an HX module still deliver after 25 years?",
                     "84.8 %", handbook, (4,)),
        EvalQuestion("clamp-torque", "What torque should the clamp bolts be tightened to?", "8 to 12 N m", handbook, (2,)),
        EvalQuestion("assembly-plant", "Where does Helios Energy assemble its modules?", "Porto, Portugal", handbook, (1,)),
        EvalQuestion("support-phone", "What is the phone number of Helios Energy customer support?",
                     "+351 22 555 0142", handbook, (6,)),
        EvalQuestion("hx450-weight", "What is the weight of the HX-450 module?", f"{hx450['weight']} kg", specs,
                     (hx450_page,)),
        EvalQuestion("hx400-dimensions", "What are the dimensions of the HX-400 module?",
                     " x ".join(str(d) for d in hx400["dims"]) + " mm", specs, (hx400_page,)),
        EvalQuestion("bifacial-voc", "What is the open circuit voltage of the HX-550 Bifacial module?",
                     f"{bifacial['voc']} V", specs, (bifacial_page,)),
        EvalQuestion("receipt-total", f"What was the total paid on receipt {first[1]}?",
                     f"{documents.receipt_totals(first[4])[2]}", receipts, (first_page,)),
        EvalQuestion("receipt-vat-rate", "What VAT rate is charged on the receipts?",  # printed on every receipt
                     f"{int(documents.VAT_RATE * 100)} %", receipts, tuple(range(1, len(documents.RECEIPT_DATA) + 1))),
        EvalQuestion("quickfit-spend", "How much did we spend at QuickFit Tyres in 2024?", f"{quickfit_total}",
                     receipts, tuple(page for page, _ in quickfit)),
        EvalQuestion("acme-orders-2024", "How many orders did ACME place in 2024?", str(len(acme_2024)),
                     documents.ORDERS_CSV),
        EvalQuestion("sunpeak-width", "What is the width of the SunPeak SP-M 0.43 module?", f"{sunpeak_width} m",
                     documents.SPECS_XLSX),
        EvalQuestion("ceo", "Who is the chief executive officer of Helios Energy?", "not in documents"),
        EvalQuestion("employees", "How many employees does Helios Energy have?", "not in documents"),
    ]


def question_lines(questions: list[EvalQuestion]) -> bytes:
    """The questions as JSONL, in the columns the question-file reader documents."""
    lines = []
    for q in questions:
        item = {"id": q.id, "question": q.question, "expected_answer": q.expected}
        if q.expected_file:
            item["expected_file"] = q.expected_file
        if q.expected_pages:
            item["expected_page"] = ", ".join(str(p) for p in q.expected_pages)
        lines.append(json.dumps(item, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_sample_questions(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / FILENAME
    path.write_bytes(question_lines(sample_questions()))
    return path
