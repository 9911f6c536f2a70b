// Benchmark app for the nest-app scenario: one NestJS app — a controller whose GET / answers {"hello":"world"} from an
// injected service, with Nest's body parsers and enableCors() — served as NEST_IMPL says: 'express' (default), Nest's
// ExpressAdapter with Express 5 on node:http; 'gale', GaleExpressAdapter of @gale-http/express/nest on Gale's engine;
// 'fulmine', Nest's ExpressAdapter over a fulmine.js app (GALE_BENCH_FULMINE names its build; Node ≥ 22), made ready
// with app.init() and served by fulmine's own listen() on uWebSockets.js, as its build here has no Nest adapter of its
// own. Plain JavaScript: the decorators are called as the functions TypeScript compiles them to, and the constructor's
// parameter types are given as emitDecoratorMetadata would. On 127.0.0.1:$PORT.
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import nodeModule from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

class HelloService {
  hello() {
    return { hello: 'world' };
  }
}
Injectable()(HelloService);

class HelloController {
  constructor(service) {
    this.service = service;
  }
  hello() {
    return this.service.hello();
  }
}
Reflect.defineMetadata('design:paramtypes', [HelloService], HelloController);
Controller()(HelloController);
Get()(HelloController.prototype, 'hello', Object.getOwnPropertyDescriptor(HelloController.prototype, 'hello'));

class AppModule {}
Module({ controllers: [HelloController], providers: [HelloService] })(AppModule);

const impl = process.env.NEST_IMPL ?? 'express';
const port = Number(process.env.PORT);
const options = { logger: ['error', 'warn'] };

if (impl === 'fulmine') {
  const { ExpressAdapter } = await import('@nestjs/platform-express');
  const fulmine = loadFulmine(process.env.GALE_BENCH_FULMINE);
  const instance = fulmine();
  const app = await NestFactory.create(AppModule, new ExpressAdapter(instance), options);
  app.enableCors();
  await app.init();
  instance.listen(port, '127.0.0.1');
} else if (impl === 'gale' || impl === 'express') {
  const adapter =
    impl === 'gale'
      ? new (await import('@gale-http/express/nest')).GaleExpressAdapter()
      : new (await import('@nestjs/platform-express')).ExpressAdapter();
  const app = await NestFactory.create(AppModule, adapter, options);
  app.enableCors();
  await app.listen(port, '127.0.0.1');
} else {
  throw new Error(`NEST_IMPL=${impl}: expected express, gale or fulmine`);
}

/** fulmine.js's express() from the build at `path`, with uWebSockets.js from beside it when it cannot find its own. */
function loadFulmine(path) {
  if (!path) throw new Error('NEST_IMPL=fulmine needs GALE_BENCH_FULMINE: the path of a fulmine.js build');
  if (Number(process.versions.node.split('.')[0]) < 22) {
    throw new Error(`fulmine.js needs Node ≥ 22 (this is ${process.version}): run the bench with --node 26`);
  }
  const require = nodeModule.createRequire(join(resolve(path), 'src', 'index.js'));
  try {
    require('uWebSockets.js');
  } catch {
    // shared/peers/node_modules/uWebSockets.js is meant to be a link to ../uWebSockets.js; a copy that turned it into
    // a file naming its target cannot be loaded: resolve the name to that build (or GALE_BENCH_UWS) instead.
    const uws = process.env.GALE_BENCH_UWS ?? join(dirname(resolve(path)), 'uWebSockets.js');
    if (!existsSync(uws)) throw new Error(`fulmine.js cannot load uWebSockets.js, and ${uws} does not exist`);
    const entry = join(uws, 'uws.js');
    // module.registerHooks: Node ≥ 22.15 (not imported by name: Node 20 has none, and runs the other rows).
    nodeModule.registerHooks({
      resolve: (specifier, context, next) => next(specifier === 'uWebSockets.js' ? entry : specifier, context),
    });
  }
  return require(resolve(path));
}
