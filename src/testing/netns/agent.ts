/**
 * A peer agent: one `Sync` in its own process, meant to run inside a test's network namespace
 * (`ip netns exec <ns> node_modules/.bin/node src/testing/netns/agent.ts '<json config>'`) and
 * driven over stdin/stdout with the JSON lines of `protocol.ts`. It exits when its stdin closes,
 * so a test that crashed leaves no agent behind; every wait it offers is bounded.
 *
 * It refuses to run LAN discovery in the host's own network namespace: the tests' multicast
 * must never leave the namespaces they create.
 */
import { readlinkSync } from 'node:fs';
import type { LogEntry } from '../../shared/log.ts';
import { LogHub, Sync, onlinePlayground } from '../../peer/host.ts';
import { CountWatches, waitRows } from './agent-waits.ts';
import { buildMeshSnapshot } from '../../peer/inspector/handlers/mesh-model.ts';
import { MAX_KEPT_LOGS, epochNow, parseCommand, parseConfig, type AgentCalls, type AgentCommand, type AgentConfig, type AgentReply } from './protocol.ts';
import { jsonLine, onLines } from '../../shared/json-lines.ts';
import { errorMessage } from '../../shared/error-message.ts';

/** Bound on the shutdown after stdin closes or `stop`: then the process exits anyway. */
const SHUTDOWN_BOUND_MS = 3_000;

function send(message: AgentReply): void {
  process.stdout.write(jsonLine(message));
}

function inHostNamespace(): boolean {
  try {
    return readlinkSync('/proc/self/ns/net') === readlinkSync('/proc/1/ns/net');
  } catch {
    return false; // No /proc to compare with: not Linux as the tests run it; the caller decides.
  }
}

function openPeer(config: AgentConfig): { sync: Sync; logs: LogEntry[]; dropped: () => number; watches: CountWatches } {
  if (config.lan !== false && inHostNamespace()) {
    throw new Error(`agent ${config.name}: refusing to run LAN discovery in the host's network namespace; run it with ip netns exec`);
  }
  const hub = new LogHub({ minimumLogLevel: config.logLevel ?? 'INFO' });
  const logs: LogEntry[] = [];
  let dropped = 0;
  hub.setCustomLogCallback((entry) => {
    logs.push(entry);
    if (logs.length > MAX_KEPT_LOGS) {
      logs.splice(0, logs.length - MAX_KEPT_LOGS);
      dropped++;
    }
  });
  const sync = new Sync({
    persistenceDirectory: config.persistenceDirectory,
    logHub: hub,
    identity: onlinePlayground({ appID: config.appID, token: config.playgroundToken, bigPeerURL: config.bigPeerURL }),
    sync: {
      bigPeer: config.bigPeer,
      connect: config.connect ?? [],
      ...(config.reconnect === undefined ? {} : { reconnect: config.reconnect }),
      peerToPeer: config.lan === false ? {} : { lan: { interface: config.lan.interface, serviceType: config.lan.serviceType } },
    },
  });
  for (const statement of config.subscriptions) sync.store.registerSubscription(statement);
  return { sync, logs, dropped: () => dropped, watches: new CountWatches(sync) };
}

async function insertMany(sync: Sync, { collection, docs, batch }: AgentCalls['insertMany']['params']): Promise<AgentCalls['insertMany']['result']> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(collection)) throw new Error(`not a collection name: ${collection}`);
  const startedAt = epochNow();
  for (let i = 0; i < docs.length; i += batch) {
    await sync.store.execute(`INSERT INTO ${collection} DOCUMENTS (:docs)`, { docs: docs.slice(i, i + batch) });
  }
  return { startedAt, finishedAt: epochNow() };
}

async function handle(peer: ReturnType<typeof openPeer>, command: AgentCommand, shutdown: () => Promise<void>): Promise<unknown> {
  const { sync } = peer;
  switch (command.type) {
    case 'start':
      await sync.startSync();
      return { peerKey: sync.peerKey, lanListenUrl: sync.lanListenUrl } satisfies AgentCalls['start']['result'];
    case 'execute': {
      const startedAt = epochNow();
      const result = await sync.store.execute(command.params.dql, command.params.args);
      return { items: result.items, startedAt, finishedAt: epochNow() } satisfies AgentCalls['execute']['result'];
    }
    case 'insertMany':
      return insertMany(sync, command.params);
    case 'waitRows':
      return waitRows(sync, command.params);
    case 'watchCount':
      return peer.watches.watch(command.params.collection);
    case 'waitCount':
      return peer.watches.wait(command.params);
    case 'sessions':
      return {
        sessions: sync.sessions.map((s) => ({
          remote: s.remote.peerKey,
          role: s.remote.role,
          connection: s.connection,
          connectionType: s.connectionType,
          remoteAddress: s.remoteAddress,
        })),
      } satisfies AgentCalls['sessions']['result'];
    case 'lanPeers':
      return {
        lanPeers: buildMeshSnapshot(sync, Date.now()).lanPeers.map((p) => ({
          name: p.name,
          peerKey: p.peerKey,
          url: p.url,
          compatible: p.compatible,
          present: p.present,
          unreachable: p.unreachable,
        })),
      } satisfies AgentCalls['lanPeers']['result'];
    case 'logs':
      return { entries: peer.logs.filter((e) => e.seq > command.params.since), dropped: peer.dropped() } satisfies AgentCalls['logs']['result'];
    case 'stop':
      await shutdown();
      return {};
  }
}

function main(): void {
  let peer: ReturnType<typeof openPeer>;
  try {
    peer = openPeer(parseConfig(process.argv[2]));
  } catch (error) {
    send({ type: 'fatal', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exitCode = 1;
    return;
  }
  let closing: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    closing ??= (async () => {
      setTimeout(() => process.exit(0), SHUTDOWN_BOUND_MS).unref();
      try {
        await peer.sync.stopSync();
      } finally {
        peer.sync.close();
      }
      // Goodbye packets and socket closes go out on the next turns of the loop.
      await new Promise((resolve) => setTimeout(resolve, 100));
    })();
    return closing;
  };
  onLines(process.stdin, (line) => {
    if (line.trim() === '') return;
    let command: AgentCommand;
    try {
      command = parseCommand(line);
    } catch (error) {
      send({ type: 'fatal', error: `unreadable command: ${(error as Error).message}` });
      return;
    }
    handle(peer, command, shutdown).then(
      (result) => {
        send({ type: 'reply', id: command.id, ok: true, result });
        if (command.type === 'stop') process.exit(0);
      },
      (error: unknown) => send({ type: 'reply', id: command.id, ok: false, error: errorMessage(error) }),
    );
  });
  // The driver went away (it finished, or crashed): so does the agent.
  process.stdin.on('end', () => void shutdown().finally(() => process.exit(0)));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void shutdown().finally(() => process.exit(0)));
  send({ type: 'ready', pid: process.pid, peerKey: peer.sync.peerKey });
}

main();
