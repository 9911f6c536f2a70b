// Benchmark app for the express-app scenario: one ordinary Express app — cors(), helmet(), express.json() and
// GET / → {"hello":"world"} — run unchanged by the Express chosen in EXPRESS_IMPL: 'express' (Express 5, default),
// 'express4', or '@gale-http/express' (Gale's drop-in). On 127.0.0.1:$PORT.
import cors from 'cors';
import helmet from 'helmet';

const impl = process.env.EXPRESS_IMPL ?? 'express';
const { default: express } = await import(impl);

const app = express();
app.disable('x-powered-by');
app.use(cors());
app.use(helmet());
app.use(express.json());
app.get('/', (_req, res) => res.json({ hello: 'world' }));
app.listen(Number(process.env.PORT), '127.0.0.1');
