"""The Form Analyzer on real pages annotated by people: ``python bench/real_forms.py``.

The pages are the 954 real pages (2015–2016) that the formasaurus 0.10.0 wheel ships,
with a person's annotation of every form's type and every field's type (MIT licence).
Only their data is used: ``pip install --no-deps formasaurus==0.10.0`` puts it in
site-packages, or ``--data DIR`` names a folder holding ``index.json`` and ``html/``.
Neither its trained models nor any training on the annotations: the analyzer stays the
paper's method driven by domain definitions (``domains/forms/*.yaml``).

The pages are split by host (the URL's hostname, lowercased, a leading ``www.``
removed): ``int(sha1(host), 16) % 3 != 0`` is the development set (the default);
the other third is kept for an independent evaluation, which runs this script with
``--split held-out`` and domain files of its own. Develop on ``dev`` only.

Each page is served from 127.0.0.1 as UTF-8 (whatever its ``<meta charset>`` says),
every other request is refused, and the page's scripts do not run (the annotation is
of the stored HTML; ``--js`` runs them). The analyzer's verdicts are compared with the
annotation:

- form type: the relevant domain whose score is the most times its µ, else "other";
  per type P / R / F1 and the accuracy over the seven classes;
- field → attribute: on each form, the domain of its annotated type; its assignments
  against the annotated field types, mapped to attributes by ``bench/real_forms.yaml``;
- declared labels: of the fields a visible ``<label>`` names, those the layout pairs
  with that label's text;
- milliseconds per form after the page has loaded (extraction and analysis).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.util
import json
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from playwright.async_api import Route, async_playwright

from deepbot.browser import launch_chromium
from deepbot.config.domain import Domain, load_domain
from deepbot.forms.analyzer import analyze_extracted
from deepbot.forms.extract import extract_page
from deepbot.forms.models import FormAnalysis, PageExtraction

ROOT = Path(__file__).resolve().parent.parent
DOMAINS = ROOT / "domains" / "forms"
MAP = Path(__file__).resolve().parent / "real_forms.yaml"
TYPES = ("s", "l", "r", "p", "c", "m", "o")
TYPE_NAMES = {"s": "search", "l": "login", "r": "registration", "p": "password recovery",
              "c": "contact/comment", "m": "mailing list", "o": "other"}  # fmt: skip
SIMPLIFY = {"b": "o", "P": "o", "V": "o", "N": "o", "C": "o"}  # the wheel's config.json, plus 'b'
SKIP = {"-", "X"}
FIELD_SKIP = {"XX", "--"}  # the wheel's config.json: not annotated, skipped
# The wheel's config.json's field simplify_map, for the codes the map names.
FIELD_SIMPLIFY = {"ns": "nf", "ch": "nf", "P0": "ph", "P1": "ph", "P2": "ph", "P3": "ph"}


def host_of(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


def split_of(url: str) -> str:
    return "dev" if int(hashlib.sha1(host_of(url).encode()).hexdigest(), 16) % 3 != 0 else "held-out"


def find_data(given: str | None) -> Path:
    if given:
        return Path(given)
    spec = importlib.util.find_spec("formasaurus")  # its data only: importing it needs scikit-learn
    if spec is None or not spec.submodule_search_locations:
        sys.exit("real_forms: no data; pip install --no-deps formasaurus==0.10.0, or pass --data DIR")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


@dataclass
class Page:
    file: str
    url: str
    types: list[str]  # per <form>, simplified; "" where not annotated
    fields: list[dict[str, str]]  # per <form>: field name -> annotated type


def load_pages(data: Path, split: str, limit: int | None, only: set[str] | None = None) -> list[Page]:
    index = json.loads((data / "index.json").read_text(encoding="utf-8"))
    pages = []
    for file, item in sorted(index.items(), key=lambda kv: int(Path(kv[0]).stem)):
        if (split != "all" and split_of(item["url"]) != split) or (only and Path(file).stem not in only):
            continue
        types = ["" if t in SKIP else SIMPLIFY.get(t, t) for t in item["forms"]]
        fields = list(item.get("visible_html_fields") or [{} for _ in types])
        pages.append(Page(file, item["url"], types, fields))
    return pages[:limit] if limit else pages


@contextmanager
def serve(data: Path, js: bool) -> Iterator[str]:
    """The stored pages on 127.0.0.1, declared UTF-8 (the wheel stores them so)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = data / "html" / Path(urlsplit(self.path).path).name
            if not path.is_file():  # a favicon, a relative link: nothing of the page's own
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            if not js:  # the page's own scripts do not run; the analyzer's evaluate still does
                self.send_header("Content-Security-Policy", "script-src 'none'")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Result:
    page: Page
    extraction: PageExtraction | None = None
    forms: tuple[FormAnalysis, ...] = ()
    ms: float = 0.0
    extract_ms: float = 0.0
    error: str = ""


def analyze_cached(pages: Sequence[Page], domains: Sequence[Domain], cache: Path) -> list[Result]:
    """The analysis alone, on extractions an earlier run saved (``--extractions``): seconds, not
    minutes, while the analyzer changes and the extraction does not."""
    saved = {row["file"]: row for row in map(json.loads, cache.read_text(encoding="utf-8").splitlines())}
    results = []
    for page in pages:
        row = saved.get(page.file)
        result = Result(page)
        if row is None or row.get("error"):
            result.error = row.get("error", "not in the saved extractions") if row else "not saved"
        else:
            result.extraction = PageExtraction.model_validate(row["extraction"])
            t0 = time.perf_counter()
            result.forms = analyze_extracted(result.extraction, domains).forms
            result.ms = (time.perf_counter() - t0) * 1000 + row["extract_ms"]
        results.append(result)
    return results


def save_extractions(results: Sequence[Result], cache: Path) -> None:
    with cache.open("w", encoding="utf-8") as out:
        for r in results:
            row: dict[str, Any] = {"file": r.page.file, "error": r.error}
            if r.extraction is not None:
                row["extraction"] = r.extraction.model_dump(mode="json")
                row["extract_ms"] = r.extract_ms
            out.write(json.dumps(row) + "\n")


async def analyze_all(data: Path, pages: Sequence[Page], domains: Sequence[Domain], js: bool,
                      timeout_s: float) -> list[Result]:
    results = []
    with serve(data, js) as origin:
        async with async_playwright() as pw:
            browser = await launch_chromium(pw)
            context = await browser.new_context()

            async def local_only(route: Route) -> None:
                if route.request.url.startswith(origin + "/"):
                    await route.continue_()
                else:
                    await route.abort()

            await context.route("**/*", local_only)
            tab = await context.new_page()
            for n, page in enumerate(pages, 1):
                result = Result(page)
                try:
                    await tab.goto(f"{origin}/{Path(page.file).name}", timeout=timeout_s * 1000,
                                   wait_until="load")
                    t0 = time.perf_counter()
                    result.extraction = await extract_page(tab)
                    result.extract_ms = (time.perf_counter() - t0) * 1000
                    result.forms = analyze_extracted(result.extraction, domains).forms
                    result.ms = (time.perf_counter() - t0) * 1000
                except Exception as exc:  # a page that breaks is counted, not fatal
                    result.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
                    await tab.close()
                    tab = await context.new_page()
                results.append(result)
                if n % 50 == 0:
                    print(f"  {n}/{len(pages)} pages", file=sys.stderr)
            await browser.close()
    return results


def form_type(form: FormAnalysis, types_of: dict[str, str]) -> str:
    """The annotated code of the form's best domain (``FormAnalysis.best_domain``), else other."""
    best = form.best_domain
    return types_of.get(best.domain, "o") if best else "o"


@dataclass
class Tally:
    hits: int = 0
    found: int = 0
    real: int = 0

    @property
    def precision(self) -> float:
        return self.hits / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.hits / self.real if self.real else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class Figures:
    pages: int = 0
    pages_used: int = 0
    mismatched: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    types: dict[str, Tally] = field(default_factory=lambda: {t: Tally() for t in TYPES})
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    attributes: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    labels: Tally = field(default_factory=Tally)
    any_label: Tally = field(default_factory=Tally)
    ms_per_form: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    field_misses: list[str] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        total = sum(self.confusion.values())
        return sum(n for (t, p), n in self.confusion.items() if t == p) / total if total else 0.0


def score(results: Sequence[Result], mapping: dict[str, Any]) -> Figures:
    types_of: dict[str, str] = {d: t for t, d in mapping["types"].items()}
    fig = Figures(pages=len(results))
    for res in results:
        page = res.page
        if res.error or res.extraction is None:
            fig.errors.append(f"{page.file}: {res.error}")
            continue
        real_forms = [f for f in res.forms if not f.virtual]
        if len(real_forms) != len(page.types):
            fig.mismatched.append(f"{page.file}: {len(real_forms)} forms in the browser, "
                                  f"{len(page.types)} annotated")
            continue
        fig.pages_used += 1
        texts = res.extraction.texts
        if real_forms:
            fig.ms_per_form.append(res.ms / len(real_forms))
        for form, extracted, truth, fields in zip(real_forms, res.extraction.forms, page.types, page.fields,
                                                  strict=False):
            # declared labels: a visible <label> the layout pairs with its field (a lone
            # checkbox's with its one option); any declared label among the field's texts
            for ef, fa in zip(extracted.fields, form.fields, strict=True):
                lone = ef.checkable and len(ef.options) == 1 and ef.options[0].markup is not None
                markup = ef.options[0].markup if lone and ef.options[0].markup else ef.markup
                declared = {texts[i].text for i in markup.label_ids}
                if declared:
                    fig.labels.real += 1
                    paired = set(fa.options[0].texts) if lone else {link.text for link in fa.links}
                    fig.labels.hits += bool(declared & paired)
                if markup.labels:
                    fig.any_label.real += 1
                    fig.any_label.hits += bool(set(markup.labels) & {t.text for t in fa.evidence})
            if not truth:
                continue
            guess = form_type(form, types_of)
            fig.confusion[(truth, guess)] += 1
            fig.types[truth].real += 1
            fig.types[guess].found += 1
            if guess == truth:
                fig.types[truth].hits += 1
            elif len(fig.misses) < 400:
                fig.misses.append(f"{page.file} form {form.form_index}: {TYPE_NAMES[truth]} read as "
                                  f"{TYPE_NAMES[guess]}; " + _why(form))
            domain = mapping["types"].get(truth)
            field_map: dict[str, str] = mapping["fields"].get(domain, {}) if domain else {}
            if not domain:
                continue
            # a field the person left unannotated ("XX") or skipped ("--") is not scored either way
            unknown = {name for name, code in fields.items() if code in FIELD_SKIP}
            want = {(name, field_map[FIELD_SIMPLIFY.get(code, code)]) for name, code in fields.items()
                    if FIELD_SIMPLIFY.get(code, code) in field_map}
            verdict = next((d for d in form.domains if d.domain == domain), None)
            got = set()
            if verdict is not None:
                by_name = {f.name: f.html_name for f in form.fields}
                got = {(by_name.get(a.field, a.field), a.attribute) for a in verdict.assignments}
                # only fields the person annotated are scored (a field with no name has no annotation)
                got = {pair for pair in got if pair[0] in fields and pair[0] not in unknown}
            if got != want and len(fig.field_misses) < 600:
                fig.field_misses.append(f"{page.file} form {form.form_index} ({domain}): extra "
                                        f"{sorted(got - want)}, missed {sorted(want - got)}")
            for _, attribute in want:
                fig.attributes[attribute].real += 1
            for pair in got:
                fig.attributes[pair[1]].found += 1
                if pair in want:
                    fig.attributes[pair[1]].hits += 1
    return fig


def _why(form: FormAnalysis) -> str:
    parts = []
    for d in form.domains:
        if d.score > 0:
            held = ", ".join(f"{a.field}→{a.attribute} {a.confidence:.2f}"
                             for a in (*d.assignments, *([d.form_attribute] if d.form_attribute else ()))
                             if a.primary)
            parts.append(f"{d.domain} {d.score:.2f}/{d.threshold} [{held}]")
    fields = "; ".join(f"{f.html_name or f.name}:{f.type} {list(f.texts)[:2]}{list(f.hints)[:2]}"
                       for f in form.fields[:6])
    whole = [f"{t.evidence.value}:{t.text}" for t in form.evidence]
    return " | ".join(parts) + f" || form: {whole} || fields: {fields}"


def as_json(fig: Figures) -> dict[str, Any]:
    return {
        "pages": fig.pages,
        "pages_used": fig.pages_used,
        "pages_mismatched": len(fig.mismatched),
        "pages_failed": len(fig.errors),
        "accuracy": round(fig.accuracy, 4),
        "types": {TYPE_NAMES[t]: {"precision": round(m.precision, 4), "recall": round(m.recall, 4),
                                  "f1": round(m.f1, 4), "real": m.real} for t, m in fig.types.items()},
        "attributes": {a: {"precision": round(m.precision, 4), "recall": round(m.recall, 4), "real": m.real}
                       for a, m in sorted(fig.attributes.items())},
        "field_attribute": _overall(fig),
        "declared_labels": {"paired": fig.labels.hits, "of": fig.labels.real,
                            "ratio": round(fig.labels.recall, 4)},
        "declared_labels_any": {"paired": fig.any_label.hits, "of": fig.any_label.real,
                                "ratio": round(fig.any_label.recall, 4)},
        "ms_per_form": {"median": round(statistics.median(fig.ms_per_form), 2) if fig.ms_per_form else None,
                        "p90": round(_p90(fig.ms_per_form), 2) if fig.ms_per_form else None,
                        "mean": round(statistics.fmean(fig.ms_per_form), 2) if fig.ms_per_form else None,
                        "max": round(max(fig.ms_per_form), 2) if fig.ms_per_form else None},
    }


def _overall(fig: Figures) -> dict[str, float]:
    rows = fig.attributes.values()
    total = Tally(sum(m.hits for m in rows), sum(m.found for m in rows), sum(m.real for m in rows))
    return {"precision": round(total.precision, 4), "recall": round(total.recall, 4)}


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def print_report(fig: Figures) -> None:
    out = as_json(fig)
    print(f"pages: {fig.pages} ({fig.pages_used} used; {len(fig.mismatched)} with another form count "
          f"in the browser; {len(fig.errors)} failed)")
    print(f"\n{'form type':<20} {'P':>6} {'R':>6} {'F1':>6} {'forms':>6}")
    for name, m in out["types"].items():
        print(f"{name:<20} {m['precision']:>6.2f} {m['recall']:>6.2f} {m['f1']:>6.2f} {m['real']:>6}")
    print(f"accuracy over the seven classes: {fig.accuracy:.3f}")
    print(f"\n{'field → attribute':<20} {'P':>6} {'R':>6} {'fields':>6}")
    for name, m in out["attributes"].items():
        print(f"{name:<20} {m['precision']:>6.2f} {m['recall']:>6.2f} {m['real']:>6}")
    o = out["field_attribute"]
    print(f"{'(all)':<20} {o['precision']:>6.2f} {o['recall']:>6.2f}")
    d = out["declared_labels"]
    print(f"\nvisible declared labels the layout pairs with their field: {d['paired']}/{d['of']} = "
          f"{d['ratio']:.3f}")
    d = out["declared_labels_any"]
    print(f"declared labels, shown or not, among their field's texts: {d['paired']}/{d['of']} = "
          f"{d['ratio']:.3f}")
    ms = out["ms_per_form"]
    print(f"ms per form after load (extraction + analysis): median {ms['median']}, p90 {ms['p90']}, "
          f"mean {ms['mean']}, max {ms['max']}")


def load_set(folder: Path, map_path: Path) -> tuple[list[Domain], dict[str, Any]]:
    """A folder's domain files and the map of annotation codes to them, checked against
    each other; a mismatch ends the run with one line naming the map and what is wrong."""
    mapping = yaml.safe_load(map_path.read_text(encoding="utf-8"))
    domains = [load_domain(p) for p in sorted(folder.glob("*.yaml"))]
    missing = set(mapping.get("types", {}).values()) - {d.name for d in domains}
    if missing or not isinstance(mapping.get("fields", {}), dict):
        sys.exit(f"real_forms: {map_path} names domains not in {folder}: {', '.join(sorted(missing))} "
                 "(the map is {types: {code: domain name}, fields: {domain name: {field code: attribute}}})")
    attributes = {d.name: {a.name for a in d.attributes} for d in domains}
    for name, codes in mapping.get("fields", {}).items():
        unknown = sorted(set(codes.values()) - attributes.get(name, set()))
        if unknown:
            sys.exit(f"real_forms: {map_path}: fields of {name}: {', '.join(unknown)} "
                     f"{'are not its attributes' if name in attributes else '(no such domain)'}")
    return domains, mapping


def domain_sets() -> list[tuple[str, Path, Path]]:
    """Every set of domain files of the repository: (name, folder, map)."""
    sets = [("domains/forms", DOMAINS, MAP),
            ("bench/plain_forms", ROOT / "bench" / "plain_forms" / "domains",
             ROOT / "bench" / "plain_forms" / "map.yaml")]
    for writer in sorted((ROOT / "bench" / "blind_forms").glob("*/map.yaml")):
        sets.append((f"bench/blind_forms/{writer.parent.name}", writer.parent / "domains", writer))
    return sets


def _every_set(data: Path, pages: list[Page], args: argparse.Namespace) -> int:
    """One line per set of domain files: accuracy, search F1, field → attribute P / R."""
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        # The pages are extracted once, by the first set; every set is analysed from that.
        cache = args.extractions or Path(scratch) / "extractions.jsonl"
        for name, folder, map_path in domain_sets():
            domains, mapping = load_set(folder, map_path)
            if cache.is_file():
                results = analyze_cached(pages, domains, cache)
            else:
                results = asyncio.run(analyze_all(data, pages, domains, args.js, args.timeout))
                save_extractions(results, cache)
            fig = as_json(score(results, mapping))
            search = fig["types"].get("search", {})
            rows.append({"set": name, "accuracy": fig["accuracy"], "search_f1": search.get("f1"),
                         "field_attribute": fig["field_attribute"]})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'domain files':<24}{'accuracy':>9}{'search F1':>11}{'field P':>9}{'field R':>9}")
    for r in rows:
        fa = r["field_attribute"]
        f1 = f"{r['search_f1']:.3f}" if r["search_f1"] is not None else "-"
        print(f"{r['set']:<24}{r['accuracy']:>9.3f}{f1:>11}{fa['precision']:>9.3f}{fa['recall']:>9.3f}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", help="a folder with index.json and html/ (default: the installed wheel's)")
    ap.add_argument("--split", choices=("dev", "held-out", "all"), default="dev")
    ap.add_argument("--domains", default=str(DOMAINS), help="a folder of domain files (*.yaml)")
    ap.add_argument("--map", default=str(MAP), help="annotation codes → domains and attributes")
    ap.add_argument("--limit", type=int, help="the first N pages only")
    ap.add_argument("--pages", help="these pages only, by number (html/N.html): 12,40,41")
    ap.add_argument("--js", action="store_true", help="run the pages' scripts")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds to load a page")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--misses", action="store_true", help="list every form whose type was missed")
    ap.add_argument("--extractions", type=Path,
                    help="a JSON-lines file of the pages' extractions: written when missing, else read, "
                         "so only the analysis runs (delete it when the extraction changes)")
    ap.add_argument("--sets", action="store_true",
                    help="every set of domain files here (domains/forms, bench/plain_forms, "
                         "bench/blind_forms/*), one line each, the pages extracted once")
    args = ap.parse_args(argv)
    data = find_data(args.data)
    pages = load_pages(data, args.split, args.limit, set(args.pages.split(",")) if args.pages else None)
    if args.sets:
        return _every_set(data, pages, args)
    domains, mapping = load_set(Path(args.domains), Path(args.map))
    if args.extractions and args.extractions.is_file():
        results = analyze_cached(pages, domains, args.extractions)
    else:
        results = asyncio.run(analyze_all(data, pages, domains, args.js, args.timeout))
        if args.extractions:
            save_extractions(results, args.extractions)
    fig = score(results, mapping)
    if args.json:
        print(json.dumps(as_json(fig), indent=2))
    else:
        print_report(fig)
    if args.misses:
        print("\n".join(["", *fig.misses, "", *fig.field_misses, "", *fig.errors, *fig.mismatched]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
