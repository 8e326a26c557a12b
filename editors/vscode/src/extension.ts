// VS Code client for the syncscope language server. Everything that can be
// tested without VS Code lives in serverPath.ts, config.ts and status.ts.
import * as os from 'os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';

import {
  configurationForSection,
  didChangeConfigurationParams,
  explicitValue,
  extraArgsWarning,
  RawSettings,
  SERVER_SETTING_KEYS,
  ServerConfig,
  serverEnvironment,
  toServerConfig,
} from './config';
import { ARITHMETIC_CHOICES, compareArguments, compareSummary, KernelChoice, kernelNames, orderChoices } from './compare';
import { DOCUMENT_SELECTOR, isServed } from './selector';
import { findServerPath, isExecutableFile } from './serverPath';
import { formatStatus, isStatusParams, Severity, StatusStore, verifyFileArguments } from './status';

const VERIFY_COMMAND = 'syncscope.verifyFile';
const STATUS_NOTIFICATION = 'syncscope/status';
const COMPARE_COMMAND = 'syncscope.compareWith';
const COMPARE_LENS_COMMAND = 'syncscope.compareKernels';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;
let statusItem: vscode.StatusBarItem | undefined;
let fallbackVerify: vscode.Disposable | undefined;
let lastProblems = '';
const statuses = new StatusStore();

function firstWorkspaceFolder(): string | undefined {
  const folders = vscode.workspace.workspaceFolders;
  return folders !== undefined && folders.length > 0 ? folders[0].uri.fsPath : undefined;
}

/** The server configuration from the user's explicitly set `syncscope.*`
 * settings. */
function currentServerConfig(): ServerConfig {
  const cfg = vscode.workspace.getConfiguration('syncscope');
  const raw: RawSettings = {};
  for (const key of SERVER_SETTING_KEYS) {
    const v = explicitValue(cfg.inspect(key));
    if (v !== undefined) {
      raw[key] = v;
    }
  }
  const { config, problems } = toServerConfig(raw);
  const joined = problems.join('\n');
  if (joined !== '' && joined !== lastProblems) {
    output?.appendLine(joined);
    void vscode.window.showWarningMessage(`Syncscope: invalid settings ignored. ${problems[0]}`);
  }
  lastProblems = joined;
  return config;
}

function activeCudaUri(): string | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc === undefined) {
    return undefined;
  }
  const served = isServed({ languageId: doc.languageId, scheme: doc.uri.scheme, path: doc.uri.path });
  return served ? doc.uri.toString() : undefined;
}

function severityColor(severity: Severity): vscode.ThemeColor | undefined {
  switch (severity) {
    case 'error':
      return new vscode.ThemeColor('statusBarItem.errorBackground');
    case 'warning':
      return new vscode.ThemeColor('statusBarItem.warningBackground');
    default:
      return undefined;
  }
}

function refreshStatusBar(): void {
  if (statusItem === undefined) {
    return;
  }
  const uri = activeCudaUri();
  if (uri === undefined) {
    statusItem.hide();
    return;
  }
  let view = formatStatus(statuses.get(uri));
  if (client === undefined || client.state === State.Stopped) {
    view = {
      text: '$(debug-disconnect) Syncscope: stopped',
      tooltip: 'The syncscope language server is not running. Click to show its output.',
      severity: 'warning',
    };
    statusItem.command = 'syncscope.showOutput';
  } else {
    statusItem.command = { title: 'Verify File', command: VERIFY_COMMAND, arguments: [uri] };
  }
  statusItem.text = view.text;
  statusItem.tooltip = view.tooltip;
  statusItem.backgroundColor = severityColor(view.severity);
  statusItem.show();
}

async function sendVerify(args: unknown[] | undefined): Promise<unknown> {
  const resolved = verifyFileArguments(args, activeCudaUri());
  if (resolved === undefined) {
    void vscode.window.showWarningMessage('Syncscope: open a CUDA file to verify it.');
    return undefined;
  }
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage('Syncscope: the language server is not running.');
    return undefined;
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command: VERIFY_COMMAND, arguments: resolved });
}

/** vscode-languageclient registers the commands the server advertises
 * (`executeCommandProvider`); if the server does not advertise
 * `syncscope.verifyFile`, or is not running, register our own. */
async function ensureVerifyCommand(): Promise<void> {
  const commands = await vscode.commands.getCommands(true);
  if (!commands.includes(VERIFY_COMMAND) && fallbackVerify === undefined) {
    fallbackVerify = vscode.commands.registerCommand(VERIFY_COMMAND, (...args: unknown[]) => sendVerify(args));
  }
}

function disposeFallbackVerify(): void {
  fallbackVerify?.dispose();
  fallbackVerify = undefined;
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const out = output!;
  const settings = vscode.workspace.getConfiguration('syncscope');
  const workspaceFolder = firstWorkspaceFolder();
  const found = findServerPath({
    configured: settings.get<string | null>('server.path'),
    envPath: process.env.SYNCSCOPE_SERVER_PATH,
    extensionPath: context.extensionPath,
    arch: process.arch,
    workspaceFolder,
    homeDir: os.homedir(),
    platform: process.platform,
    pathEnv: process.env.PATH,
    isExecutable: isExecutableFile,
  });
  if (!found.ok) {
    out.appendLine(found.error);
    await ensureVerifyCommand();
    refreshStatusBar();
    const choice = await vscode.window.showErrorMessage(`Syncscope: ${found.error}`, 'Open Settings', 'Show Output');
    if (choice === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'syncscope.server.path');
    } else if (choice === 'Show Output') {
      out.show();
    }
    return;
  }
  // `syncscope lsp` takes no arguments: the old `server.extraArgs` setting
  // made it exit with a usage error, so it is no longer passed on.
  const ignored = extraArgsWarning(settings.get<unknown>('server.extraArgs'));
  if (ignored !== undefined) {
    out.appendLine(ignored);
    void vscode.window.showWarningMessage(`Syncscope: ${ignored}`);
  }
  const { env, problems: envProblems } = serverEnvironment(process.env, settings.get<unknown>('server.env'));
  for (const p of envProblems) {
    out.appendLine(p);
  }
  out.appendLine(`Starting ${found.path} lsp (found via ${found.source})`);

  const serverOptions: ServerOptions = {
    command: found.path,
    args: ['lsp'],
    options: { cwd: workspaceFolder, env },
  };

  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    initializationOptions: currentServerConfig(),
    outputChannel: out,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    synchronize: {
      // Makes the client send workspace/didChangeConfiguration after
      // initialization and whenever a `syncscope.*` setting changes; the
      // middleware below replaces the raw settings with the mapped ones.
      configurationSection: 'syncscope',
      fileEvents: vscode.workspace.createFileSystemWatcher('**/syncscope.toml'),
    },
    middleware: {
      executeCommand: async (command, args, next) => {
        if (command !== VERIFY_COMMAND) {
          return next(command, args);
        }
        const resolved = verifyFileArguments(args, activeCudaUri());
        if (resolved === undefined) {
          void vscode.window.showWarningMessage('Syncscope: open a CUDA file to verify it.');
          return undefined;
        }
        return next(command, resolved);
      },
      workspace: {
        didChangeConfiguration: async () => {
          await client?.sendNotification(
            DidChangeConfigurationNotification.type,
            didChangeConfigurationParams(currentServerConfig()),
          );
        },
        configuration: async (params, token, next) => {
          const isOurs = (s: string | undefined) => s === 'syncscope' || (s !== undefined && s.startsWith('syncscope.'));
          const config = currentServerConfig();
          if (params.items.every((item) => isOurs(item.section))) {
            return params.items.map((item) => configurationForSection(config, item.section));
          }
          const fallback = await next(params, token);
          if (!Array.isArray(fallback)) {
            return fallback;
          }
          return params.items.map((item, i) =>
            isOurs(item.section) ? configurationForSection(config, item.section) : fallback[i],
          );
        },
      },
    },
  };

  const newClient = new LanguageClient('syncscope', 'Syncscope', serverOptions, clientOptions);
  newClient.onNotification(STATUS_NOTIFICATION, (params: unknown) => {
    if (isStatusParams(params) && statuses.update(params)) {
      refreshStatusBar();
    }
  });
  newClient.onDidChangeState(() => refreshStatusBar());
  // This client runs the "Compare with…" lens itself (it picks the other
  // kernel): the server offers the lens only to clients that say so.
  newClient.registerFeature({
    fillClientCapabilities: (caps) => {
      caps.experimental = { ...(caps.experimental ?? {}), compareLens: true };
    },
    initialize: () => undefined,
    getState: () => ({ kind: 'static' }),
    clear: () => undefined,
  });
  client = newClient;
  try {
    await newClient.start();
  } catch (err) {
    out.appendLine(`Failed to start the syncscope server: ${String(err)}`);
    void vscode.window
      .showErrorMessage(`Syncscope: failed to start "${found.path} lsp": ${String(err)}`, 'Show Output')
      .then((choice) => (choice === 'Show Output' ? out.show() : undefined));
  }
  await ensureVerifyCommand();
  refreshStatusBar();
}

/** Every kernel of the workspace's CUDA files (open documents as edited),
 * for the picker of the other version. */
async function workspaceKernels(): Promise<KernelChoice[]> {
  const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d]));
  const files = await vscode.workspace.findFiles('**/*.{cu,cuh}', '**/node_modules/**', 2000);
  const uris = new Map<string, vscode.Uri>(files.map((u) => [u.toString(), u]));
  for (const d of open.values()) {
    if (isServed({ languageId: d.languageId, scheme: d.uri.scheme, path: d.uri.path })) {
      uris.set(d.uri.toString(), d.uri);
    }
  }
  const choices: KernelChoice[] = [];
  for (const [key, uri] of uris) {
    let text: string;
    try {
      text = open.get(key)?.getText() ?? new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      continue;
    }
    const where = vscode.workspace.asRelativePath(uri);
    for (const kernel of kernelNames(text)) {
      choices.push({ uri: key, kernel, where });
    }
  }
  return choices;
}

/** `syncscope.compareKernels [uri, kernel]` (the lens; without arguments,
 * a kernel of the active editor): pick the other version, ask the server's
 * `syncscope.compareWith`, and show the verdict (the whole answer in the
 * output channel). */
async function compareKernels(args: unknown[]): Promise<void> {
  const c = client;
  if (c === undefined || !c.isRunning()) {
    void vscode.window.showWarningMessage('Syncscope: the server is not running.');
    return;
  }
  let [uri, kernel] = args.map((a) => (typeof a === 'string' ? a : undefined));
  if (uri === undefined || kernel === undefined) {
    const doc = vscode.window.activeTextEditor?.document;
    if (doc === undefined || !isServed({ languageId: doc.languageId, scheme: doc.uri.scheme, path: doc.uri.path })) {
      void vscode.window.showWarningMessage('Syncscope: open a CUDA file to compare one of its kernels.');
      return;
    }
    uri = doc.uri.toString();
    const names = kernelNames(doc.getText());
    kernel = names.length === 1 ? names[0] : await vscode.window.showQuickPick(names, { placeHolder: 'Kernel to compare' });
    if (kernel === undefined) {
      return;
    }
  }
  const from = { uri, kernel };
  const choices = orderChoices(from, await workspaceKernels());
  const picked = await vscode.window.showQuickPick(
    choices.map((ch) => ({ label: ch.kernel, description: ch.where, choice: ch })),
    { placeHolder: `Compare ${kernel} with…`, matchOnDescription: true },
  );
  if (picked === undefined) {
    return;
  }
  const arithmetic = await vscode.window.showQuickPick([...ARITHMETIC_CHOICES], {
    placeHolder: 'Compare the values as…',
  });
  if (arithmetic === undefined) {
    return;
  }
  const result: unknown = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Syncscope: comparing ${kernel} with ${picked.choice.kernel}…` },
    () =>
      c.sendRequest(ExecuteCommandRequest.type, {
        command: COMPARE_COMMAND,
        arguments: compareArguments(from, picked.choice, arithmetic.assoc),
      }),
  );
  output?.appendLine(JSON.stringify(result, null, 2));
  const summary = compareSummary(result);
  const show = summary.proved ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  void show(summary.text, 'Show Output').then((choice) => (choice === 'Show Output' ? output?.show() : undefined));
}

async function stopClient(): Promise<void> {
  const old = client;
  client = undefined;
  statuses.clear();
  if (old !== undefined) {
    try {
      if (old.isRunning()) {
        await old.stop(5000);
      }
    } catch (err) {
      output?.appendLine(`Error stopping the server: ${String(err)}`);
    }
    await old.dispose().catch(() => undefined);
  }
  // Let the next client register `syncscope.verifyFile` itself.
  disposeFallbackVerify();
}

async function restartClient(context: vscode.ExtensionContext): Promise<void> {
  await stopClient();
  await startClient(context);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('Syncscope');
  statusItem = vscode.window.createStatusBarItem('syncscope.status', vscode.StatusBarAlignment.Left, 0);
  statusItem.name = 'Syncscope';
  context.subscriptions.push(
    output,
    statusItem,
    vscode.commands.registerCommand('syncscope.restartServer', () => restartClient(context)),
    vscode.commands.registerCommand('syncscope.showOutput', () => output?.show()),
    vscode.commands.registerCommand(COMPARE_LENS_COMMAND, (...args: unknown[]) => compareKernels(args)),
    vscode.window.onDidChangeActiveTextEditor(() => refreshStatusBar()),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      statuses.delete(doc.uri.toString());
      refreshStatusBar();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('syncscope.server')) {
        void restartClient(context);
      }
    }),
    { dispose: () => disposeFallbackVerify() },
  );
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
