// Benchmark app for the nest-app scenario: one NestJS app — a controller whose GET / answers {"hello":"world"} from an
// injected service, with Nest's body parsers and enableCors() — served as NEST_IMPL says: 'express' (default), Nest's
// ExpressAdapter with Express 5 on node:http; 'gale', GaleExpressAdapter of @gale-http/express/nest on Gale's engine;
// 'fulmine', Nest's ExpressAdapter over a fulmine.js app (apps/peers.mjs; Node ≥ 22), made ready
// with app.init() and served by fulmine's own listen() on uWebSockets.js, as its build here has no Nest adapter of its
// own. Plain JavaScript: the decorators are called as the functions TypeScript compiles them to, and the constructor's
// parameter types are given as emitDecoratorMetadata would. On 127.0.0.1:$PORT.
import 'reflect-metadata';
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadPeer } from './peers.mjs';

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
  const fulmine = loadPeer('fulmine', process.env.GALE_BENCH_FULMINE);
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
