// The text is the truth: every edit makes a new text, which is read again at once (a config is
// a few kilobytes; loading, validating and planning it takes well under a millisecond). A key
// edit that would not read back as the key set falls back to the whole text written anew.
#include "job_document.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <algorithm>

#include "config/devices.h"
#include "config/slurm_partitions.h"
#include "job_yaml_edit.h"

namespace traindeck {

const QString JobDocument::kHostDevice = QStringLiteral("host");

namespace {

constexpr std::size_t kHistorySteps = 500;

bool unreadable(const Diagnostics& problems) {  // a problem with the file as a whole
  return std::any_of(problems.begin(), problems.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::Error && d.path.empty(); });
}

// "target.kind: ssh → local": the keys whose YAML values differ.
QStringList changedKeys(const std::optional<RunConfig>& before, const std::optional<RunConfig>& after) {
  if (!before || !after) return {};
  const QMap<QString, QString> was = fieldValueTexts(*before), now = fieldValueTexts(*after);
  const auto shown = [](const QString& v) { return v.isEmpty() || v == "\"\"" ? JobDocument::tr("(none)") : v; };
  QStringList changes;
  for (auto it = now.cbegin(); it != now.cend(); ++it)
    if (was.value(it.key()) != it.value())
      changes << JobDocument::tr("%1: %2 → %3").arg(it.key(), shown(was.value(it.key())), shown(it.value()));
  return changes;
}

std::optional<RunConfig> configOf(const std::optional<LoadedConfig>& loaded) {
  return loaded ? std::optional<RunConfig>(loaded->config) : std::nullopt;
}

}  // namespace

JobDocument::JobDocument(QObject* parent) : QObject(parent), m_baseDir(QDir::currentPath()) {
  m_history.push_back(m_text);
  update();
}

void JobDocument::load(const QString& text, const QString& filePath, const QString& baseDir) {
  m_text = text;
  m_savedText = text;
  m_filePath = filePath;
  m_baseDir = baseDir;
  m_history = {text};
  m_at = 0;
  m_lastReadable.reset();  // another job: what the one before said does not stand for it
  m_lastReadableText.clear();
  update();
}

void JobDocument::resetText(const QString& text) {
  m_text = text;
  m_history = {text};
  m_at = 0;
  update();
}

QString JobDocument::saveTo(const QString& path) {
  QSaveFile out(path);  // a temporary file renamed over it, as saveConfigFile does
  QString text = m_text;
  if (!text.endsWith('\n')) text += '\n';
  if (!out.open(QIODevice::WriteOnly) || out.write(text.toUtf8()) < 0 || !out.commit()) return out.errorString();
  m_filePath = QFileInfo(path).absoluteFilePath();
  m_baseDir = QFileInfo(path).absolutePath();
  m_savedText = m_text;
  update();  // relative paths now mean the new folder
  return {};
}

void JobDocument::setText(const QString& text) {
  if (text != m_text) commit(text);
}

bool JobDocument::setValues(const KeyEdits& edits) {
  emit editStarting();
  if (!m_lastReadable) return false;
  const QString edited = withValues(m_loaded ? m_text : m_lastReadableText, edits);
  if (edited != m_text) commit(edited);
  return true;
}

QString JobDocument::withValues(QString text, const KeyEdits& edits) const {
  const std::string base = m_baseDir.toStdString();
  for (const auto& [path, valueYaml] : edits) {
    const LoadedConfig wanted =
        loadConfigText(text.toStdString(), "<yaml>", base, {path.toStdString() + "=" + valueYaml.toStdString()});
    const std::optional<QString> edited = withKeyValue(text, path, valueYaml);
    if (edited && loadConfigText(edited->toStdString(), "<yaml>", base).config == wanted.config)
      text = *edited;
    else  // not editable in place: the whole text anew, with the value set
      text = QString::fromStdString(saveConfigText(wanted.config));
  }
  return text;
}

QString JobDocument::textWithAbsolutePaths() const {
  if (!m_lastReadable) return m_text;
  RunConfig c = m_lastReadable->config;
  KeyEdits edits;
  for (const auto& [path, value] : pathFields(c)) {
    const QString written = QString::fromStdString(*value);
    // ~/ and ${VAR} mean the same anywhere; only a relative path depends on where the file is.
    if (written.isEmpty() || QDir::isAbsolutePath(written) || written.startsWith('~') || written.startsWith('$'))
      continue;
    edits.append({path, yamlScalar(QDir::cleanPath(QDir(m_baseDir).filePath(written)))});
  }
  return withValues(m_loaded ? m_text : m_lastReadableText, edits);
}

void JobDocument::commit(const QString& text) {
  m_history.resize(static_cast<std::size_t>(m_at) + 1);
  m_history.push_back(text);
  if (m_history.size() > kHistorySteps) m_history.erase(m_history.begin());
  m_at = static_cast<int>(m_history.size()) - 1;
  m_text = text;
  update();
}

void JobDocument::moveInHistory(int step) {
  emit editStarting();
  const int to = m_at + step;
  if (to < 0 || to >= static_cast<int>(m_history.size())) return;
  const std::optional<RunConfig> before = configOf(m_lastReadable);
  m_at = to;
  m_text = m_history[static_cast<std::size_t>(to)];
  update();
  emit historyMoved(step < 0, changedKeys(before, configOf(m_lastReadable)));
}

QSet<QString> JobDocument::unreadableKeys() const {
  QSet<QString> keys;
  if (m_loaded)
    for (const Diagnostic& d : m_loaded->problems)
      if (!d.path.empty()) keys.insert(QString::fromStdString(d.path));
  return keys;
}

void JobDocument::setThisMachine(const std::optional<HostDevices>& devices) {
  m_thisMachine = devices;
  update();  // checked again against what this machine has
}

void JobDocument::setHostProbes(const QMap<QString, HostProbe>& probes) {
  m_probes = probes;
  update();  // checked again against what the target host has
}

void JobDocument::setPlanDevice(const QString& name) {
  if (name == m_planDevice) return;
  m_planDevice = name;
  replan();
  emit changed();
}

ValidationContext JobDocument::contextFor(const RunConfig& config) const {
  // This machine's devices as its trainer says them, a host's as last probed: what the trainer's
  // own `validate` checks there. The rules pick the one the target names (an ssh target is
  // never checked against this machine); one not known skips them.
  ValidationContext context;
  context.host = m_thisMachine;
  const auto probe = m_probes.constFind(QString::fromStdString(config.target.host));
  if (probe == m_probes.constEnd()) return context;
  context.remoteHost = probedDevices(*probe).forValidation();
  // A Slurm login node as last probed: its partitions say which jobs can never run there.
  if (config.target.kind == TargetKind::Slurm && !probe->sinfo.isEmpty())
    context.slurmPartitions = parseSinfo(probe->sinfo.toStdString());
  return context;
}

void JobDocument::update() {
  const std::optional<RunConfig> before = configOf(m_lastReadable);
  const bool wasStartable = m_startable;
  reparse();
  replan();
  if (configOf(m_lastReadable) != before) emit valuesChanged();
  if (m_startable != wasStartable) emit startableChanged(m_startable);
  emit changed();
}

void JobDocument::reparse() {
  LoadedConfig loaded = loadConfigText(m_text.toStdString(), "<yaml>", m_baseDir.toStdString());
  if (unreadable(loaded.problems)) {  // the values, and the plan, stay the last readable ones
    m_loaded.reset();
    m_configProblems = loaded.problems;
    m_startable = false;
    return;
  }
  m_configProblems = checkConfig(loaded, contextFor(loaded.config));
  // The plan needs the job's own model and strategy right, checked without the machine: what the
  // target lacks (no CUDA device there) is a problem of where it runs, listed, not of the plan.
  m_planable = !hasErrors(problemsIn(checkConfig(loaded, ValidationContext{}), {"model", "strategy"}));
  m_startable = !hasErrors(m_configProblems);
  m_loaded = loaded;
  m_lastReadable = std::move(loaded);
  m_lastReadableText = m_text;
}

void JobDocument::replan() {
  // The target host, when it is one and has been probed: planned for its devices once it appears.
  std::optional<ProbedDevices> host;
  QString spec;
  if (m_lastReadable && isRemote(m_lastReadable->config.target.kind)) {
    spec = QString::fromStdString(m_lastReadable->config.target.host);
    if (const auto probe = m_probes.constFind(spec); probe != m_probes.constEnd()) host = probedDevices(*probe);
  }
  const bool hostChanged = host.has_value() != m_targetHost.has_value() || spec != m_targetHostSpec ||
                           (host && host->label != m_targetHost->label);
  if (hostChanged && host) m_planDevice = kHostDevice;
  if (hostChanged && !host && m_targetHost) m_plannedKind.reset();  // the default device is picked again
  m_targetHost = host;
  m_targetHostSpec = spec;
  // CPU jobs are planned on this machine's CPU, CUDA (or auto) jobs on the GPU the job's name says
  // (a preset's: "…-colab-t4"), else an H100, until one is chosen.
  if (m_lastReadable && !m_targetHost && m_plannedKind != m_lastReadable->config.strategy.device) {
    m_plannedKind = m_lastReadable->config.strategy.device;
    const std::optional<DeviceSpec> named = deviceNamedIn(m_lastReadable->config.name);
    m_planDevice = *m_plannedKind == DeviceKind::Cpu ? QStringLiteral("CPU")
                   : named                           ? QString::fromStdString(named->name)
                                                     : QStringLiteral("H100");
  }
  m_plan.reset();
  m_problems = m_configProblems;
  if (!m_loaded || !m_planable) return;  // no plan of values the text no longer holds
  const bool onHost = m_targetHost && m_planDevice == kHostDevice;
  const DeviceSpec device = onHost                  ? m_targetHost->device
                            : m_planDevice == "CPU" ? thisMachineCpu()
                                                    : findDevice(m_planDevice.toStdString()).value_or(thisMachineCpu());
  m_plan = planJob(m_lastReadable->config, device);
  if (onHost) {
    m_plan->hostSpec = m_targetHostSpec;
    m_plan->hostLabel = m_targetHost->label;
    m_plan->hostKnown = m_targetHost->known;
  }
  std::optional<Diagnostic> fit = fitProblem(*m_plan);
  if (!m_loaded || !fit) return;  // a plan that does not fit is a problem of the text shown
  if (const auto place = m_loaded->places.find(fit->path); place != m_loaded->places.end()) {
    fit->line = place->second.line;
    fit->column = place->second.column;
  }
  const auto after = std::find_if(m_problems.begin(), m_problems.end(),
                                  [&](const Diagnostic& o) { return fit->line > 0 && o.line > fit->line; });
  m_problems.insert(after, *fit);
}

}  // namespace traindeck
