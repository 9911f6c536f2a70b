// Plugins: register(plugin, { prefix, ...options }) runs the plugin with a router of its own, whose hooks, middleware,
// derive() state and decorations stay inside it (a hook registered in a plugin does not run on a route outside it),
// while the app's apply inside; plugins load in order, async ones awaited by ready(), listen() and app.request();
// a plugin marked as not encapsulating (definePlugin, or fastify-plugin's own mark) runs with its parent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fp from 'fastify-plugin';
import { definePlugin, derive, gale, type Router } from 'gale';

test('a plugin’s hooks, middleware, state and decorations stay inside it; the app’s apply inside', async (t) => {
  const seen: string[] = [];
  const app = gale();
  t.after(() => app.close());
  app.addHook('onRequest', (req) => {
    seen.push(`app hook ${req.path}`);
  });
  app.register(
    (users, options: { greeting: string }) => {
      users.addHook('preHandler', (req) => {
        seen.push(`users hook ${req.path}`);
      });
      users.decorateRequest('area', 'users');
      users
        .use(derive(() => ({ role: 'member' })))
        .get('/', (req) => `${options.greeting} ${req.state.role} ${(req as unknown as { area: string }).area}`);
      users.register(
        (admins) => {
          admins.addHook('preHandler', () => {
            seen.push('admins hook');
          });
          admins.get('/', (req) => `admins ${(req as unknown as { area: string }).area}`);
        },
        { prefix: '/admins' },
      );
    },
    { prefix: '/users', greeting: 'hello' },
  );
  app.register(
    (other) => {
      other.get('/', (req) => `other ${(req as unknown as { area?: string }).area}`);
    },
    { prefix: '/other' },
  );
  app.get('/', (req) => `root ${(req as unknown as { area?: string }).area} ${JSON.stringify(req.state)}`);
  await app.ready();

  const text = async (path: string) => (await app.request(path)).text();
  assert.equal(await text('/users'), 'hello member users');
  assert.equal(await text('/users/admins'), 'admins users');
  assert.equal(await text('/other'), 'other undefined');
  assert.equal(await text('/'), 'root undefined {}');
  assert.deepEqual(seen, [
    'app hook /users',
    'users hook /users',
    'app hook /users/admins',
    'users hook /users/admins',
    'admins hook',
    'app hook /other',
    'app hook /',
  ]);
});

test('async plugins load in order and are awaited by listen() and app.request(); ready() says when', async (t) => {
  const order: string[] = [];
  const app = gale();
  t.after(() => app.close());
  app.register(async (instance) => {
    await new Promise((r) => setTimeout(r, 20));
    order.push('slow');
    instance.get('/slow', () => 'slow');
  });
  app.register((instance) => {
    order.push('sync after slow');
    instance.get('/quick', () => 'quick');
  });
  assert.deepEqual(order, [], 'a plugin registered after a loading one waits for it');
  const { port } = await app.listen(0, '127.0.0.1');
  assert.deepEqual(order, ['slow', 'sync after slow']);
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/slow`)).text(), 'slow');
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/quick`)).text(), 'quick');

  const inProcess = gale();
  t.after(() => inProcess.close());
  inProcess.register(async (instance) => {
    await new Promise((r) => setTimeout(r, 5));
    instance.get('/late', () => 'late');
  });
  assert.equal(await (await inProcess.request('/late')).text(), 'late');
});

test('a plugin that fails to load fails ready() and listen(), naming it', async (t) => {
  const app = gale();
  t.after(() => app.close());
  app.register(async function database() {
    throw new Error('connection refused');
  });
  await assert.rejects(app.ready(), { message: 'plugin database failed to load: connection refused' });
  await assert.rejects(app.listen(0, '127.0.0.1'), /plugin database failed to load/);
  const sync = gale();
  t.after(() => sync.close());
  sync.register(function broken() {
    throw new TypeError('bad options');
  });
  await assert.rejects(sync.ready(), { name: 'TypeError', message: 'plugin broken failed to load: bad options' });
});

test('a plugin that does not encapsulate (definePlugin, or fastify-plugin’s fp) runs with its parent', async (t) => {
  const seen: string[] = [];
  const app = gale();
  t.after(() => app.close());
  app.register(
    definePlugin(
      (instance: Router) => {
        instance.addHook('onRequest', (req) => {
          seen.push(`shared ${req.path}`);
        });
        instance.decorate('db', new Map([['a', '1']]));
      },
      { encapsulate: false, name: 'db' },
    ),
  );
  // fastify-plugin marks the function with Symbol.for('skip-override'), which register() reads (its types are
  // Fastify's, hence the casts).
  const headerPlugin = (instance: Router, options: { header: string }) => {
    instance.addHook('onSend', (_req, res) => {
      res.header(options.header, '1');
    });
  };
  app.register(fp(headerPlugin as never) as unknown as typeof headerPlugin, { header: 'x-fp' });
  app.get('/x', () => 'x');
  const res = await app.request('/x');
  assert.equal(res.headers.get('x-fp'), '1');
  assert.deepEqual(seen, ['shared /x']);
  assert.equal(app.hasDecorator('db'), true);
  assert.equal((app as unknown as { db: Map<string, string> }).db.get('a'), '1');
  assert.throws(
    () =>
      app.register(
        definePlugin(() => {}, { encapsulate: false }),
        { prefix: '/p' },
      ),
    /does not encapsulate .* takes? no prefix/,
  );
});

test('decorate: typed, seen by the plugins registered after it, refused twice; a plugin’s own stay in it', async (t) => {
  const app = gale();
  t.after(() => app.close());
  const decorated = app.decorate('config', { region: 'eu' });
  assert.equal(decorated.config.region, 'eu');
  let inside: unknown;
  let own = false;
  app.register((instance) => {
    inside = (instance as unknown as { config: { region: string } }).config.region;
    instance.decorate('cache', new Map());
    own = instance.hasDecorator('cache') && instance.hasDecorator('config');
  });
  await app.ready();
  assert.equal(inside, 'eu');
  assert.equal(own, true);
  assert.equal(app.hasDecorator('cache'), false, 'a plugin’s decoration stays in it');
  assert.throws(() => app.decorate('config', 1), /already has a property config/);
  assert.throws(() => app.decorate('get', 1), /already has a property get/);
  assert.throws(() => app.register('nope' as never), /a plugin is a function/);
  assert.throws(() => app.register(() => {}, { prefix: 'x' }), /prefix must be a path starting with '\/'/);
});

test('the Fastify plugin ported in docs/guides/hooks-and-plugins.md works as the guide says', async (t) => {
  // The guide's port, as written there (the Request augmentation aside: the property is read through a cast here).
  const apiKey = definePlugin(
    async (instance: Router, opts: { keys: Record<string, string> }) => {
      instance.decorateRequest('client', null);
      instance.addHook('onRequest', async (req, res) => {
        const client = opts.keys[req.get('x-api-key') ?? ''];
        if (!client) return res.status(401).send({ error: 'unknown API key' });
        (req as unknown as { client: string }).client = client;
      });
    },
    { encapsulate: false, name: 'api-key' },
  );
  const app = gale();
  t.after(() => app.close());
  app.register(apiKey, { keys: { k1: 'acme' } });
  app.get('/whoami', (req) => ({ client: (req as unknown as { client: string | null }).client }));
  const refused = await app.request('/whoami');
  assert.deepEqual([refused.status, await refused.json()], [401, { error: 'unknown API key' }]);
  const known = await app.request('/whoami', { headers: { 'x-api-key': 'k1' } });
  assert.deepEqual([known.status, await known.json()], [200, { client: 'acme' }]);
});

test('decorateReply gives each response of the scope its property; the plugin’s responses only', async (t) => {
  const app = gale();
  t.after(() => app.close());
  app.register(
    (instance) => {
      instance.decorateReply('flavour', 'plain');
      instance.addHook('onSend', (_req, res) => {
        const r = res as unknown as { flavour: string };
        res.header('x-flavour', r.flavour);
        r.flavour = 'changed'; // a fresh value per response: the next one starts from 'plain' again
      });
      instance.get('/in', (_req, res) => String((res as unknown as { flavour: string }).flavour));
    },
    { prefix: '/p' },
  );
  app.get('/out', (_req, res) => String((res as unknown as { flavour?: string }).flavour));
  for (let i = 0; i < 2; i++) {
    const inside = await app.request('/p/in');
    assert.deepEqual([await inside.text(), inside.headers.get('x-flavour')], ['plain', 'plain']);
  }
  assert.equal(await (await app.request('/out')).text(), 'undefined');
  assert.throws(() => app.decorateReply('cache', []), /every request would share that one object/);
});
