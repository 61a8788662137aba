//! The private Python module `wavemetrics._native`: paths in, plain tuples out,
//! one call per read unit (never one per line). Errors become Python exceptions.

use crate::account::LineAccount;
use crate::activity::Timing;
use crate::command;
use crate::detect::Sniffers;
use crate::readers::{self, Unit, UnitOut};
use crate::summary::{histogram_text, Figure, LaneRecords, Settings, Summary, FIGURE_NAMES};
use crate::window::Window;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The interface `wavemetrics/run/native.py` calls (`_API_VERSION` there): bump it
/// whenever a function of this module is added, removed or changes its
/// arguments or results, so that an extension built from older sources is
/// found out and not called (`native.available()` is then false).
pub const API_VERSION: u32 = 30;

/// The read settings: `eval_names` and `batchable_names` in normal form, empty ones
/// dropped (`_extension.eval_names`), `idle_gap_ms` finite and `>= 0` (ms, `0`
/// disables idle time: `activity.check_idle_gap`, which the caller runs).
fn settings(
    max_tracked_calls: Option<usize>,
    eval_names: Vec<String>,
    batchable_names: Vec<String>,
    idle_gap_ms: f64,
) -> PyResult<Settings> {
    if !idle_gap_ms.is_finite() || idle_gap_ms < 0.0 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "idle_gap_ms must be finite and >= 0 (0 disables idle detection)",
        ));
    }
    Ok(Settings {
        max_tracked_calls,
        eval_names,
        stream: true,
        batchable_names,
        idle_gap_ms,
        record: false,
    })
}

fn account<'py>(py: Python<'py>, a: &LineAccount) -> PyResult<Bound<'py, PyTuple>> {
    let ignored: Vec<(Bound<'py, PyBytes>, u64)> = a
        .ignored
        .iter()
        .map(|(k, n)| (PyBytes::new(py, k), *n))
        .collect();
    (
        a.lines_read,
        a.lines_used,
        ignored,
        a.all_problems(),
        a.all_notes(),
    )
        .into_pyobject(py)
}

fn texts(column: &[Box<str>]) -> Vec<&str> {
    column.iter().map(|text| &**text).collect()
}

/// A lane's observations (`LaneRecords`), as `pipeline._BatchLane` takes them:
/// `(starts, call_ids, tool_names, at_ms, batches, turn_total_ms, turn_intervals)`,
/// `starts` a list of `bool` (`False`: an end), `batches` each the key's bytes or
/// `None`, `turn_intervals` a list of `(start_ms, end_ms)`.
fn records<'py>(py: Python<'py>, r: &LaneRecords) -> PyResult<Bound<'py, PyTuple>> {
    let batches: Vec<Option<Bound<'py, PyBytes>>> = r
        .batches
        .iter()
        .map(|key| key.as_ref().map(|key| PyBytes::new(py, key)))
        .collect();
    (
        &r.starts,
        texts(&r.call_ids),
        texts(&r.tool_names),
        &r.at_ms,
        batches,
        r.turn_total_ms,
        &r.turns,
    )
        .into_pyobject(py)
}

/// A lane's figures, a flat tuple in [`FIGURE_NAMES`] order: counts as `int`, ms as
/// `float`, the histogram as its wire string.
fn summary<'py>(py: Python<'py>, s: &Summary) -> PyResult<Bound<'py, PyTuple>> {
    let values = s
        .figures()
        .into_iter()
        .map(|(_, value)| match value {
            Figure::Count(n) => n.into_bound_py_any(py),
            Figure::Ms(ms) => ms.into_bound_py_any(py),
            Figure::Histogram(h) => histogram_text(h).into_bound_py_any(py),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, values)
}

/// `(accounts, lanes, read_again_in_batch)`; an account is `(lines_read, lines_used,
/// [(ignored type as WTF-8 bytes, n)], [(problem, n)], [(note, n)])`, a lane is
/// `(file index, session_id, lane_id, figures, records)`, `figures` as [`summary`]
/// gives them, `records` as [`records`] gives them when the unit was read with its
/// observations kept (`record`), else `None`.
fn unit<'py>(py: Python<'py>, out: &UnitOut) -> PyResult<Bound<'py, PyTuple>> {
    let accounts = out
        .accounts
        .iter()
        .map(|a| account(py, a))
        .collect::<PyResult<Vec<_>>>()?;
    let lanes = out
        .lanes
        .iter()
        .map(|l| {
            Ok((
                l.file,
                l.session_id.as_str(),
                l.lane_id.as_str(),
                summary(py, &l.summary)?,
                l.records.as_ref().map(|r| records(py, r)).transpose()?,
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    (accounts, lanes, out.read_again_in_batch).into_pyobject(py)
}

/// Read many units on `jobs` threads (settings as [`settings`] takes them): `units`
/// are `(format, paths, fallback ids)`, `format` a [`readers::Format`] code (`0`
/// events, `1` claude-code, `2` codex, `3` pi, `4` copilot, `5` kimi, `6` openclaw, `7` mcode, `8` otlp, `9` otel-spans, `10` inspect): a Claude Code
/// project folder, `paths` as file-system bytes in order, with one fallback session id
/// per path; an `events` file and its default session id; a Codex rollout and the
/// session id its file name gives; the pi session files of one folder, each with the
/// session id its file name gives; a Copilot or Kimi log and the session id its place
/// in the store gives; an OpenClaw store and its file stem (not used: its rows name
/// their sessions); an mcode stream file (its session id unused: its lines name their
/// sessions); an OTLP trace file (its session id unused; a file of whole
/// documents is declined: `None`). A code no format has is a `ValueError`.
/// `record`: keep every lane's observations (a batch read: each lane's `records`,
/// read in batch mode, never streamed). Results in unit order, each a unit tuple
/// ([`unit`]), or `None` when that unit failed (I/O, turn total) or, with `record`,
/// when a call id or tool name of it holds U+FFFD (`LaneRecords::replaced`):
/// the caller reads it with the Python readers. With fewer units than `jobs`, each
/// Claude Code unit of several files is split: its files are parsed on `jobs /
/// units` threads and merged in file order (`readers::ClaudeCode`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn read_units<'py>(
    py: Python<'py>,
    units: Vec<(u8, Vec<Vec<u8>>, Vec<String>)>,
    max_tracked_calls: Option<usize>,
    eval_names: Vec<String>,
    batchable_names: Vec<String>,
    idle_gap_ms: f64,
    jobs: usize,
    record: bool,
) -> PyResult<Vec<Option<Bound<'py, PyTuple>>>> {
    let mut s = settings(max_tracked_calls, eval_names, batchable_names, idle_gap_ms)?;
    if record {
        s.record = true;
        s.stream = false;
    }
    let formats = units
        .iter()
        .map(|(code, _, _)| {
            readers::Format::from_code(*code).ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!("no format has the code {code}"))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    // the threads left over when there are fewer units than jobs go to splitting
    let per_unit = (jobs / units.len().max(1)).max(1);
    let outs = py.detach(|| {
        crate::parallel::map_indexed(units.len(), jobs, |i| {
            let (_, paths, fallbacks) = &units[i];
            let paths: Vec<&Path> = paths
                .iter()
                .map(|p| Path::new(OsStr::from_bytes(p)))
                .collect();
            let unit = Unit {
                paths: &paths,
                session_ids: fallbacks,
            };
            readers::reader(formats[i]).read(&unit, &s, per_unit).ok()
        })
    });
    outs.iter()
        .map(|out| {
            // records that may not be the Python readers' (a replaced lone surrogate):
            // the unit is theirs to read
            let exact = |o: &&UnitOut| {
                !o.lanes
                    .iter()
                    .any(|l| l.records.as_ref().is_some_and(|r| r.replaced))
            };
            out.as_ref().filter(exact).map(|o| unit(py, o)).transpose()
        })
        .collect()
}

/// One file of a folded group: its path (file-system bytes), its fallback session id
/// as a Claude Code file, and its default session id as an `events` file when that
/// differs (`None`: the same).
type FoldArg = (Vec<u8>, String, Option<String>);

/// Detect and read groups of files on `jobs` threads, each file opened and its first
/// lines parsed once (`readers::read_folded`): a group is the candidate files of one
/// Claude Code project folder, in path order; `sniff_types` the record types of each
/// format detection takes, by format code (`registry.native_sniffers()`: a missing or
/// empty list is a format not detected). Per group, in group order: `(found,
/// claude, alone, folders)`: each file's detection (`0` events, `1` claude-code, `2`
/// codex, `3` pi, `None`: ask the registry), the unit of the files found `claude-code`
/// (a unit tuple ([`unit`]), or `None`: none, or the read failed), `[(file index, unit
/// tuple or None)]` for the files read as units of their own (`events` and `codex`),
/// and `[([file index], unit tuple or None)]` for each folder of `pi` files (a
/// rollout's or pi file's session id without one is its file name's UUID). With fewer groups than `jobs`,
/// a group's files are parsed on the threads left over.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn read_folded<'py>(
    py: Python<'py>,
    groups: Vec<Vec<FoldArg>>,
    sniff_types: Vec<Vec<String>>,
    max_tracked_calls: Option<usize>,
    eval_names: Vec<String>,
    batchable_names: Vec<String>,
    idle_gap_ms: f64,
    jobs: usize,
) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let s = settings(max_tracked_calls, eval_names, batchable_names, idle_gap_ms)?;
    let sniffers = Sniffers::from_lists(&sniff_types);
    let per_group = (jobs / groups.len().max(1)).max(1);
    let outs = py.detach(|| {
        crate::parallel::map_indexed(groups.len(), jobs, |i| {
            let files: Vec<readers::FoldFile> = groups[i]
                .iter()
                .map(|(path, claude, events)| readers::FoldFile {
                    path: Path::new(OsStr::from_bytes(path)),
                    claude_fallback: claude,
                    events_default: events.as_deref().unwrap_or(claude),
                })
                .collect();
            readers::read_folded(&files, &sniffers, &s, per_group)
        })
    });
    outs.iter()
        .map(|out| {
            let found: Vec<Option<usize>> =
                out.found.iter().map(|f| f.map(|d| d as usize)).collect();
            let claude = out.claude.as_ref().map(|o| unit(py, o)).transpose()?;
            let alone = out
                .alone
                .iter()
                .map(|(index, o)| Ok((*index, o.as_ref().map(|o| unit(py, o)).transpose()?)))
                .collect::<PyResult<Vec<_>>>()?;
            let folders = out
                .folders
                .iter()
                .map(|(files, o)| Ok((files.clone(), o.as_ref().map(|o| unit(py, o)).transpose()?)))
                .collect::<PyResult<Vec<_>>>()?;
            (found, claude, alone, folders).into_pyobject(py)
        })
        .collect()
}

/// A read unit of another format, as `plan_others` returns it: its format's code, its
/// files (walk indexes) and the session id of each file's lines without one.
type OtherArg = (u8, Vec<usize>, Vec<String>);

/// An account as [`account`] writes it: `(lines_read, lines_used, [(ignored type as
/// WTF-8 bytes, n)], [(problem, n)], [(note, n)])`.
type AccountArg = (
    u64,
    u64,
    Vec<(Vec<u8>, u64)>,
    Vec<(String, u64)>,
    Vec<(String, u64)>,
);

/// A lane as [`unit`] writes it: `(file index, session_id, lane_id, figures, records)`,
/// exactly one of the last two given: the figures (read by [`figures_of`]), or the
/// lane's observations ([`RecordsArg`]), which the command summarises itself.
type LaneArg<'py> = (
    usize,
    String,
    String,
    Option<Vec<Bound<'py, PyAny>>>,
    Option<RecordsArg<'py>>,
);

/// A lane's valid observations as [`records`] writes them, then its call timing
/// (`"execution"` or `"message"`): `(starts, call_ids, tool_names, at_ms, batches,
/// turn_total_ms, turn_intervals, timing)`, every time a `float`.
type RecordsArg<'py> = (
    Vec<bool>,
    Vec<String>,
    Vec<String>,
    Vec<Bound<'py, PyFloat>>,
    Vec<Option<Vec<u8>>>,
    Bound<'py, PyFloat>,
    Vec<(Bound<'py, PyFloat>, Bound<'py, PyFloat>)>,
    String,
);

/// The [`LaneRecords`] of `arg` (their waves not yet made: the command replays
/// them), or `None` for a timing of another name or columns of unequal lengths.
fn records_of(arg: RecordsArg<'_>) -> Option<LaneRecords> {
    let (starts, call_ids, tool_names, at_ms, batches, turn_total, turns, timing) = arg;
    let count = starts.len();
    if [call_ids.len(), tool_names.len(), at_ms.len(), batches.len()] != [count; 4] {
        return None;
    }
    Some(LaneRecords {
        starts,
        call_ids: call_ids.into_iter().map(String::into_boxed_str).collect(),
        tool_names: tool_names.into_iter().map(String::into_boxed_str).collect(),
        at_ms: at_ms.iter().map(|at| at.value()).collect(),
        batches: batches
            .into_iter()
            .map(|b| b.map(Vec::into_boxed_slice))
            .collect(),
        turn_total_ms: turn_total.value(),
        turns: turns.iter().map(|(a, b)| (a.value(), b.value())).collect(),
        timing: match timing.as_str() {
            "execution" => Timing::Execution,
            "message" => Timing::Message,
            _ => return None,
        },
        ..LaneRecords::default()
    })
}

/// A unit read by the Python readers, as `plan_others` hands it over: its format's
/// name, its files (walk indexes) and its read in [`unit`]'s shape.
type ReadArg<'py> = (
    String,
    Vec<usize>,
    (Vec<AccountArg>, Vec<LaneArg<'py>>, bool),
);

/// The summary of a figures tuple as [`summary`] writes it: each count an `int`, each
/// ms value a `float` (exactly those types: an `int` in a float's place would be
/// written `0` by `json.dumps` where the document writes `0.0`), the histograms their
/// wire strings; `None` for anything else.
fn figures_of(values: &[Bound<'_, PyAny>]) -> Option<Summary> {
    let kinds = Summary::default();
    let kinds = kinds.figures();
    if values.len() != kinds.len() {
        return None;
    }
    let mut histograms: Vec<[u64; 8]> = Vec::new();
    let mut scalars: Vec<Option<Figure>> = Vec::with_capacity(values.len());
    for (value, (_, kind)) in values.iter().zip(kinds.iter()) {
        scalars.push(match kind {
            Figure::Count(_) if value.is_exact_instance_of::<PyInt>() => {
                Some(Figure::Count(value.extract().ok()?))
            }
            Figure::Ms(_) if value.is_exact_instance_of::<PyFloat>() => {
                Some(Figure::Ms(value.extract().ok()?))
            }
            Figure::Histogram(_) if value.is_exact_instance_of::<PyString>() => {
                let text: String = value.extract().ok()?;
                let counts: Vec<u64> = text
                    .split(':')
                    .map(|n| {
                        n.parse()
                            .ok()
                            .filter(|_| n.bytes().all(|b| b.is_ascii_digit()))
                    })
                    .collect::<Option<_>>()?;
                histograms.push(counts.try_into().ok()?);
                None
            }
            _ => return None,
        });
    }
    let mut histograms = histograms.iter();
    let figures: Vec<Figure> = scalars
        .into_iter()
        .map(|scalar| scalar.or_else(|| histograms.next().map(Figure::Histogram)))
        .collect::<Option<_>>()?;
    Summary::from_figures(&figures)
}

/// The [`command::Other`] of a unit the Python readers read ([`ReadArg`]), or `None`
/// when it is not in that shape (a figure or time of another type, a count past 64
/// bits, both or neither of a lane's figures and observations).
fn read_elsewhere(arg: &Bound<'_, PyAny>) -> Option<command::Other> {
    let (format, files, (accounts, lanes, read_again_in_batch)): ReadArg = arg.extract().ok()?;
    let accounts = accounts
        .into_iter()
        .map(|(lines_read, lines_used, ignored, problems, notes)| {
            let mut account = LineAccount::default();
            (account.lines_read, account.lines_used) = (lines_read, lines_used);
            for (kind, n) in ignored {
                account.add_ignored(&kind, n);
            }
            for (problem, n) in problems {
                account.problem_named(&problem, n);
            }
            for (note, n) in notes {
                account.note_named(&note, n);
            }
            account
        })
        .collect();
    let lanes = lanes
        .into_iter()
        .map(|(file, session_id, lane_id, figures, records)| {
            let (summary, records) = match (figures, records) {
                (Some(figures), None) => (figures_of(&figures)?, None),
                (None, Some(records)) => (Summary::default(), Some(Box::new(records_of(records)?))),
                _ => return None,
            };
            Some(readers::LaneOut {
                file,
                session_id,
                lane_id,
                summary,
                records,
            })
        })
        .collect::<Option<_>>()?;
    let out = UnitOut {
        accounts,
        lanes,
        read_again_in_batch,
    };
    Some(command::Other::Read { format, files, out })
}

/// What `plan_others` returned for some of the files: a unit the extension reads
/// ([`OtherArg`]), a unit the Python readers read ([`ReadArg`]), or a file to skip,
/// `(walk index, reason)`; `None` for anything else.
fn other_of(arg: &Bound<'_, PyAny>) -> Option<command::Other> {
    if let Ok((code, files, session_ids)) = arg.extract::<OtherArg>() {
        return Some(command::Other::Unit(command::OtherUnit {
            format: readers::Format::from_code(code)?,
            files,
            session_ids,
        }));
    }
    if let Ok((file, reason)) = arg.extract::<(usize, String)>() {
        return Some(command::Other::Skip { file, reason });
    }
    read_elsewhere(arg)
}

/// A file of the native command: path, Claude Code fallback session id, `events`
/// default session id when that differs (`None`: the same), project-folder group.
type CommandArg = (String, String, Option<String>, usize);

/// How far the native command's read has gone, for the progress bar drawn while it
/// runs (`command::Progress`): made with each file's size in bytes, in walk order,
/// handed to `summarize_json`, and asked `done()` from another thread while the read
/// runs without the GIL.
#[pyclass(frozen, module = "wavemetrics._native")]
struct ReadProgress(command::Progress);

#[pymethods]
impl ReadProgress {
    #[new]
    fn new(sizes: Vec<u64>) -> Self {
        ReadProgress(command::Progress::new(sizes))
    }

    /// `(files, bytes)` read so far.
    fn done(&self) -> (usize, u64) {
        self.0.done()
    }
}

/// `callable(arg)` (with the GIL), for the strings it returns: `None` without a
/// callable, when what it returns is no list of strings, or when it raises (kept in
/// `raised`, which the caller raises again once the run is over).
fn strings_of<A>(
    callable: Option<&Py<PyAny>>,
    arg: A,
    raised: &mut Option<PyErr>,
) -> Option<Vec<String>>
where
    A: for<'py> IntoPyObject<'py>,
{
    let callable = callable?;
    Python::attach(|py| match callable.bind(py).call1((arg,)) {
        Ok(answer) => answer.extract().ok(),
        Err(error) => {
            *raised = Some(error);
            None
        }
    })
}

/// The native `summarize --format json` (`command.rs`): `files` in walk order,
/// `skipped` the sidecars the walk passed over (`(path, reason)`, path order),
/// `sniff_types` as `read_folded` takes them,
/// `options` the JSON text of the document's `"options"` value (written as it is:
/// `wavemetrics/run/_options.py` renders it). Once
/// the files are read, `noted` is called with `([(format, lines_read, lines_used,
/// lines_ignored, [(problem, n)])], [(input index, session_id, lane_id)], loss)`, the
/// facts the notes are worked out from (`loss`: `(waves, paired calls, lanes)` that a
/// window left out when it kept no wave, else `None`: `command::WindowLoss`), while the document is rendered on other threads
/// (the notes and the after-read check overlap the rendering: docs/performance-history.md,
/// "Eleventh round"). Returns `(document bytes, what noted returned, tools, periods)`, or a `str`, the
/// reason the run is left to the Python command (then `noted` was not called); an
/// exception `noted` raises is raised. `progress`: a [`ReadProgress`] the read counts
/// its files in as it goes (a progress bar's), or `None`. `plan_others`: called (with
/// the GIL) with the walk indexes of the files the folded read found no format for;
/// returns their read units (`[(format code, [walk index], [session id])]`, each
/// file in one) or `None`, and the run is then declined, as it is without
/// `plan_others` or when it returns something else; what it raises is raised (after
/// the run, which it declines), as `noted`'s is. `since_ms`, `until_ms`: the
/// `--since`/`--until` window in Unix ms (`None`: open; both `None`: no window), each
/// lane cut to it as `slices.window_lane` cuts it (`window.rs`). `by_tool`: the run is
/// `--by tool`; the third member of the result is then `([(tool name, calls, calls in
/// multi-call non_eval waves, durations summed in ms, calls in eval or mixed waves)],
/// [[tool index] per lane])` (`command::ToolTable`), else `None`. `period_labels`: the
/// run is `--by day|week|month`; called (with the GIL) with the times (Unix ms,
/// ascending, distinct) whose periods the cut needs, it returns one label per time
/// (else the run is declined; what it raises is raised, as `plan_others`'s is); the
/// fourth member of the result is then `([label], [figures as JSON bytes], [[label
/// index] per lane])` (`command::PeriodTable`), else `None`. `groups`: `"session"`,
/// `"lane"` or `"project"` for a `--by session|lane|project --format json` run: the
/// document is then the `--by` document itself (`command::Groups`; a `ValueError` for
/// another name, or for `"project"` without `projects`). `projects`: called (with the
/// GIL) with `[(path, format)]` of the inputs holding lanes, in walk order, it returns
/// each one's project (`groups.project_of`; else the run is declined; what it raises
/// is raised, as `plan_others`'s is).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (files, skipped, sniff_types, max_tracked_calls, eval_names,
                    batchable_names, idle_gap_ms, jobs, options, noted, progress=None,
                    since_ms=None, until_ms=None, plan_others=None, by_tool=false,
                    period_labels=None, waves=0, groups=None, projects=None))]
fn summarize_json<'py>(
    py: Python<'py>,
    files: Vec<CommandArg>,
    skipped: Vec<(String, String)>,
    sniff_types: Vec<Vec<String>>,
    max_tracked_calls: Option<usize>,
    eval_names: Vec<String>,
    batchable_names: Vec<String>,
    idle_gap_ms: f64,
    jobs: usize,
    options: String,
    noted: Bound<'py, PyAny>,
    progress: Option<Bound<'py, ReadProgress>>,
    since_ms: Option<f64>,
    until_ms: Option<f64>,
    plan_others: Option<Bound<'py, PyAny>>,
    by_tool: bool,
    period_labels: Option<Bound<'py, PyAny>>,
    waves: u8,
    groups: Option<String>,
    projects: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let s = settings(max_tracked_calls, eval_names, batchable_names, idle_gap_ms)?;
    let (groups, by_project) = match (groups.as_deref(), &projects) {
        (None, _) => (None, false),
        (Some("session"), _) => (Some(command::Groups::Session), false),
        (Some("lane"), _) => (Some(command::Groups::Lane), false),
        (Some("project"), Some(_)) => (None, true),
        (Some(other), _) => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "groups is \"session\", \"lane\" or \"project\" (with projects), not {other:?}"
            )))
        }
    };
    let window =
        (since_ms.is_some() || until_ms.is_some()).then_some(Window { since_ms, until_ms });
    let progress = progress.map(Bound::unbind);
    let sniffers = Sniffers::from_lists(&sniff_types);
    let files: Vec<command::CommandFile> = files
        .iter()
        .map(|(path, claude, events, group)| command::CommandFile {
            path,
            claude_fallback: claude,
            events_default: events.as_deref().unwrap_or(claude),
            group: *group,
        })
        .collect();
    let noted = noted.unbind();
    let plan_others = plan_others.map(Bound::unbind);
    // what `plan_others` raised: raised again once the run is over (it is declined)
    let mut raised: Option<PyErr> = None;
    // what `period_labels` and `projects` raised, likewise
    let mut raised_labels: Option<PyErr> = None;
    let period_labels = period_labels.map(Bound::unbind);
    let mut label_times =
        |times: &[f64]| strings_of(period_labels.as_ref(), times.to_vec(), &mut raised_labels);
    let periods = period_labels.is_some();
    let mut raised_projects: Option<PyErr> = None;
    let projects = projects.map(Bound::unbind);
    let mut file_projects = |files: &[(&str, &str)]| {
        strings_of(projects.as_ref(), files.to_vec(), &mut raised_projects)
    };
    // the whole run without the GIL: `noted` takes it back for its call only, so that a
    // Python thread it starts (the after-read check) runs beside the render
    let done = py.detach(|| {
        // made here: a `dyn` closure is not sent between threads
        let by = if periods {
            command::By::Period(&mut label_times)
        } else if by_project {
            command::By::Project(&mut file_projects)
        } else if let Some(groups) = groups {
            command::By::Groups(groups)
        } else if waves > 0 {
            command::By::Waves
        } else if by_tool {
            command::By::Tool
        } else {
            command::By::Lanes
        };
        command::summarize_then(
            &files,
            &skipped,
            &options,
            &sniffers,
            &s,
            jobs,
            // a frozen class: its counters are read and written without the GIL
            progress.as_ref().map(|p| &p.get().0),
            window.as_ref(),
            by,
            |rest| {
                let plan = plan_others.as_ref()?;
                Python::attach(|py| {
                    let planned = match plan.bind(py).call1((rest.to_vec(),)) {
                        Ok(planned) => planned,
                        Err(error) => {
                            raised = Some(error);
                            return None;
                        }
                    };
                    let units: Option<Vec<Bound<PyAny>>> = planned.extract().ok()?;
                    units?.iter().map(other_of).collect()
                })
            },
            |inputs, lanes, loss| {
                Python::attach(|py| -> PyResult<Py<PyAny>> {
                    let inputs: Vec<_> = inputs
                        .iter()
                        .map(|i| {
                            let problems = i.problems.clone();
                            (
                                i.format.as_str(),
                                i.lines_read,
                                i.lines_used,
                                i.lines_ignored,
                                problems,
                            )
                        })
                        .collect();
                    let lanes: Vec<_> = lanes
                        .iter()
                        .map(|l| (l.file, l.session_id.as_str(), l.lane_id.as_str()))
                        .collect();
                    let loss = loss.map(|l| (l.waves, l.paired_calls, l.lanes));
                    Ok(noted.bind(py).call1((inputs, lanes, loss))?.unbind())
                })
            },
        )
    });
    if let Some(error) = raised.or(raised_labels).or(raised_projects) {
        return Err(error);
    }
    match done {
        Err(decline) => Ok(decline.reason().into_pyobject(py)?.into_any()),
        Ok((document, answer)) => {
            let tools = document.tools.map(|table| {
                let counts: Vec<_> = table
                    .counts
                    .into_iter()
                    .map(|c| {
                        (
                            c.tool_name,
                            c.calls,
                            c.multi,
                            c.duration_ms,
                            c.eval_or_mixed,
                        )
                    })
                    .collect();
                (counts, table.lanes)
            });
            let periods = document.periods.map(|table| {
                let figures: Vec<Bound<'py, PyBytes>> = table
                    .figures
                    .iter()
                    .map(|json| PyBytes::new(py, json))
                    .collect();
                (table.labels, figures, table.lanes)
            });
            let third = match document.waves {
                // `waves=3`: the rows of the `waves --format json` document, as text
                Some(table) if waves == 3 => {
                    PyBytes::new(py, &command::wave_rows_json(&table)).into_any()
                }
                // `waves=4`: the whole `waves --format csv` text
                Some(table) if waves == 4 => {
                    PyBytes::new(py, &command::wave_rows_csv(&table)).into_any()
                }
                Some(table) => wave_lists(py, table, waves == 2)?,
                None => tools.into_pyobject(py)?.into_any(),
            };
            Ok((PyBytes::new(py, &document.json), answer?, third, periods)
                .into_pyobject(py)?
                .into_any())
        }
    }
}

/// A wave as `summarize_json(waves=...)` gives it: `(start ms, span ms, size, peak
/// concurrency, bucket, modeled saving in ms, [tool name], [(call id, start ms, end
/// ms)] or None)`.
type WaveTuple<'py> = (
    f64,
    f64,
    usize,
    usize,
    &'static str,
    f64,
    Vec<Bound<'py, PyString>>,
    Option<Vec<(Bound<'py, PyString>, f64, f64)>>,
);

/// The waves of each lane (`command::WaveTable`) as Python lists of [`WaveTuple`],
/// each with its calls when `calls`.
fn wave_lists(
    py: Python<'_>,
    table: command::WaveTable,
    calls: bool,
) -> PyResult<Bound<'_, PyAny>> {
    let lanes: Vec<Vec<WaveTuple<'_>>> = table
        .iter()
        .map(|lane| {
            lane.waves
                .iter()
                .map(|(shape, members)| {
                    let names = members
                        .iter()
                        .map(|c| PyString::new(py, &c.tool_name))
                        .collect();
                    let listed = calls.then(|| {
                        members
                            .iter()
                            .map(|c| (PyString::new(py, &c.call_id), c.start_ms, c.end_ms))
                            .collect()
                    });
                    (
                        shape.start_ms,
                        shape.span_ms,
                        shape.size,
                        shape.max_concurrency,
                        shape.bucket.name(),
                        shape.saved_ms,
                        names,
                        listed,
                    )
                })
                .collect()
        })
        .collect();
    Ok(lanes.into_pyobject(py)?.into_any())
}

/// The folder walk of a run over folders (`walk.rs`): `tops` as `(spelled, absolute)`
/// pairs, the suffix rules of `wavemetrics/inputs/_suffixes.py`, `key`: whether the run
/// key's fingerprint is wanted, `jobs`: threads to walk on. Returns `(key bytes or None,
/// files or None, their (fallback session id, stem or None, group) or None, sidecars)`,
/// or `None` when a name is not UTF-8 (the Python walks then decide).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn walk_folders<'py>(
    py: Python<'py>,
    tops: Vec<(String, String)>,
    trace: Vec<String>,
    skipped: Vec<String>,
    session: Vec<String>,
    key: bool,
    jobs: usize,
) -> Option<(
    Option<Bound<'py, PyBytes>>,
    Option<Vec<String>>,
    Option<Vec<(String, Option<String>, usize)>>,
    Vec<String>,
)> {
    let suffixes = crate::walk::Suffixes {
        trace: &trace,
        skipped: &skipped,
        session: &session,
    };
    let walked = py.detach(|| {
        let tops: Vec<crate::walk::Top> = tops
            .iter()
            .map(|(spelled, absolute)| crate::walk::Top { spelled, absolute })
            .collect();
        crate::walk::walk(&tops, &suffixes, key, jobs)
    })?;
    let names = walked.names.map(|names| {
        names
            .into_iter()
            .map(|n| (n.fallback_session_id, n.stem, n.group))
            .collect()
    });
    Some((
        walked.key.map(|text| PyBytes::new(py, &text)),
        walked.files,
        names,
        walked.sidecars,
    ))
}

/// How many files the separate detection pass (`detect_many`) has looked at
/// in this process, and how many groups `read_folded` has read (tests use them).
#[pyfunction]
fn detection_counts() -> (usize, usize) {
    (
        crate::detect::SEPARATE_DETECTIONS.load(std::sync::atomic::Ordering::Relaxed),
        readers::FOLDED_READS.load(std::sync::atomic::Ordering::Relaxed),
    )
}

/// Detect each file's format from its first lines on `jobs` threads (`sniff_types`
/// as `read_folded` takes them): `0` `events`, `1` `claude-code`, `2` `codex`, `3`
/// `pi`, `None` (ask the registry; also a file that cannot be read).
#[pyfunction]
fn detect_many(
    py: Python<'_>,
    paths: Vec<Vec<u8>>,
    sniff_types: Vec<Vec<String>>,
    jobs: usize,
) -> Vec<Option<usize>> {
    let sniffers = Sniffers::from_lists(&sniff_types);
    py.detach(|| {
        crate::parallel::map_indexed(paths.len(), jobs, |i| {
            crate::detect::detect(Path::new(OsStr::from_bytes(&paths[i])), &sniffers)
                .ok()
                .flatten()
                .map(|found| found as usize)
        })
    })
}

/// How many Claude Code units this process has read split across threads (tests
/// use it to see that `--jobs` took the split path).
#[pyfunction]
fn split_reads() -> usize {
    readers::SPLIT_READS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The names of a lane's figures, in the order of its figures tuple ([`summary`]):
/// `SUMMARY_FIELDS` of `wavemetrics/core/schema.py` (`tests/test_native.py` checks it).
#[pyfunction]
fn figure_names(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    PyTuple::new(py, FIGURE_NAMES)
}

/// SHA-256 (FIPS 180-4) of `data`, 32 bytes: what `hashlib.sha256(data).digest()`
/// gives, without loading OpenSSL (`wavemetrics/cache/_digest.py`: run keys and stored
/// outputs). RustCrypto's `sha2`, with the CPU's SHA instructions where it has them;
/// the GIL is released while it hashes (`bytes` cannot change meanwhile).
#[pyfunction]
fn sha256<'py>(py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
    use sha2::{Digest, Sha256};
    let digest: [u8; 32] = py.detach(|| Sha256::digest(data).into());
    PyBytes::new(py, &digest)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("API_VERSION", API_VERSION)?;
    m.add_function(wrap_pyfunction!(read_units, m)?)?;
    m.add_function(wrap_pyfunction!(detect_many, m)?)?;
    m.add_function(wrap_pyfunction!(split_reads, m)?)?;
    m.add_function(wrap_pyfunction!(read_folded, m)?)?;
    m.add_function(wrap_pyfunction!(detection_counts, m)?)?;
    m.add_function(wrap_pyfunction!(summarize_json, m)?)?;
    m.add_class::<ReadProgress>()?;
    m.add_function(wrap_pyfunction!(walk_folders, m)?)?;
    m.add_function(wrap_pyfunction!(sha256, m)?)?;
    m.add_function(wrap_pyfunction!(figure_names, m)?)?;
    Ok(())
}
