import type { Messages } from "../messages.ts";

export const ru: Messages = {
  noAnswer: "(нет ответа)",
  truncated: "(ответ обрезан)",
  failed: "⚠️ {reason}",
  answerCut: "ответ оборван: {reason}",
  numberInLine: "⏳ сейчас много вопросов: ваш — {place, number}-й в очереди",
  busy: "⏳ Бот сейчас перегружен: попробуйте ещё раз через минуту.",

  errorUnexpected: "что-то пошло не так на стороне бота",
  errorApiKey: "чат-бот отклонил ключ API ({status})",
  errorPermission:
    "чат-бот отказал в доступе ({status}): для общения нужна платная подписка в аккаунте чат-бота",
  errorNotFound: "чат-бот не найден ({status}): проверьте базовый URL и идентификатор бота",
  errorBackendBusy: "чат-бот перегружен ({status}); попробуйте ещё раз чуть позже",
  errorBackendFailed: "сервис чат-бота дал сбой ({status}); попробуйте ещё раз позже",
  errorBackendRefused: "чат-бот отклонил запрос ({status})",
  errorApi: "чат-бот вернул ошибку (код {code})",
  errorApiDetail: "чат-бот вернул ошибку (код {code}): {detail}",
  errorProtocol: "чат-бот прислал ответ, который этот бот не может прочитать",
  errorNoResponse: "чат-бот не ответил вовремя",
  errorSilent: "чат-бот перестал присылать ответ",
  errorTooLong: "чат-бот отвечал дольше, чем {duration}",
  errorUnreachable: "не удалось связаться с чат-ботом",
  errorConnectionLost: "соединение потеряно",
  errorInterrupted: "прервано",
  errorStore: "хранилище бота сейчас недоступно; попробуйте ещё раз чуть позже",
  errorPlatformRateLimit: "платформа чата попросила бота отправлять сообщения реже",
  errorCannotPost: "бот не может писать здесь",
  errorCannotPostBecause: "бот не может писать здесь ({error})",
  errorRestarting:
    "бот перезапускается и не успел ответить на ваш вопрос: задайте его снова через минуту",
  errorSlackRefused: "Slack отклонил ответ ({error})",
  errorSlackAdminCheck:
    "не удалось проверить, администратор ли вы в рабочем пространстве ({error})",
  errorTelegramRefused: "Telegram отклонил запрос бота ({error})",
  errorTelegramUnreachable: "бот не смог связаться с Telegram; попробуйте ещё раз чуть позже",
  errorTelegramAdminCheck:
    "не удалось узнать у Telegram, администратор ли вы здесь; попробуйте ещё раз",

  channelNotEnabled: "В этом канале бот не включён.",
  userNotAllowed: "К сожалению, вас нет в списке тех, кому разрешено пользоваться этим ботом.",
  emptyQuestion: "Пожалуйста, напишите вопрос.",
  questionTooLong:
    "В вашем вопросе {length, plural, one {# символ} few {# символа} many {# символов} other {# символа}}, а можно не больше {limit, number}. Пожалуйста, сократите его.",
  slowDown:
    "Не так быстро: можно задать {count, plural, one {# вопрос} few {# вопроса} many {# вопросов} other {# вопроса}} за {window, number} с. Попробуйте снова через {seconds, number} с.",
  onlyText: "Я понимаю только текстовые сообщения: пожалуйста, напишите свой вопрос.",

  helpIntro: "Спрашивайте что угодно или используйте команду:",
  helpLine: "{usage}  {what}",
  helpHelp: "список команд",
  helpNew: "начать новый разговор в этой ветке",
  helpLanguage: "показать язык ответов в этом канале",
  helpLanguageSet: "сменить его (администраторы; {auto} сбрасывает)",
  helpLeads: "лиды за последние дни (по умолчанию {days, number}), в канале лидов",
  helpLeadsSubscribe: "объявлять здесь новые лиды (администраторы); {unsubscribe} отключает",
  unknownCommand: "Неизвестная команда {command}.",
  newConversation: "Начинаем заново: следующий вопрос откроет новый разговор.",
  newOutsideThread:
    "Здесь каждая ветка — отдельный разговор: чтобы начать заново, откройте новую ветку (упомяните меня или напишите мне новое сообщение) или напишите {new} после упоминания внутри ветки.",
  languageNamed: "{name} ({code})",
  languageAuto: "язык каждого вопроса ({code})",
  languageShown:
    "Язык ответов здесь: {language}. Администраторы могут сменить его командой {command}.",
  languageShownDefault:
    "Язык ответов здесь: {language}, по умолчанию. Администраторы могут сменить его командой {command}.",
  languageSet: "Теперь язык ответов здесь: {language}.",
  languageReset: "Язык ответов сброшен, теперь здесь: {language}.",
  languageAdminOnly: "Сменить язык ответов может только администратор этого канала.",
  languageUnknown: "неизвестный код языка. Допустимые коды: {codes}",

  leadsUsage: "ожидалось {list}, {days} (от 1 до {max, number}), {subscribe} или {unsubscribe}",
  leadsNotSetUp: "Объявления о лидах для этого бота не настроены.",
  leadsAdminOnly: "Включить или выключить объявления о лидах могут только администраторы бота.",
  leadsOnlyInLeadChannels:
    "Лиды показываются только в каналах лидов. Администратор бота может сделать этот канал каналом лидов командой {command}.",
  leadsNone:
    "Нет лидов за {days, plural, one {последний # день} few {последние # дня} many {последние # дней} other {последние # дня}}.",
  leadsTooManyToCount:
    "Слишком много лидов, чтобы их сосчитать: бот читает не больше {read, number} за раз, и все прочитанные старше, чем {days, plural, one {# день} few {# дня} many {# дней} other {# дня}}.",
  leadsTitle:
    "{count, plural, one {# лид} few {# лида} many {# лидов} other {# лида}} за {days, plural, one {последний # день} few {последние # дня} many {последние # дней} other {последние # дня}}, сначала новые:",
  leadsTitleAtLeast:
    "Не меньше {count, plural, one {# лида} few {# лидов} many {# лидов} other {# лида}} за {days, plural, one {последний # день} few {последние # дня} many {последние # дней} other {последние # дня}} (больше, чем бот читает за раз), сначала новые:",
  leadsMoreAtLeast: "…и ещё не меньше {count, number}.",
  leadsMoreOlder:
    "…и ещё {count, plural, one {# более старый} few {# более старых} many {# более старых} other {# более старого}}.",
  leadLine: "• {time}: {name} · {phone} · {email}",
  leadLineRemark: "• {time}: {name} · {phone} · {email} — «{remark}»",
  leadsConfigured: "Этот канал получает лиды по настройкам бота ({variables}); меняйте их там.",
  leadsSubscribed: "Теперь этот канал получает каждый новый лид.",
  leadsAlreadySubscribed: "Этот канал уже получает каждый новый лид.",
  leadsUnsubscribed: "Этот канал больше не получает объявления о лидах.",
  leadsNotSubscribed: "Этот канал и не получал объявления о лидах.",
  leadTitle: "Новый лид",
  leadFallback: "Новый лид: {name}",
  leadName: "Имя",
  leadPhone: "Телефон",
  leadEmail: "Эл. почта",
  leadRemark: "Комментарий",
  leadTime: "Время",
  leadConversation: "Разговор",
  leadCaptured: "Получен",
  leadCapturedOutside: "вне чатов, которые обслуживает этот бот",
  leadCapturedPrivate: "в личном чате {platform} с {name}",
  leadCapturedBusiness: "в чате {platform} бизнес-аккаунта с {name}",
  leadCapturedPrivateUnnamed: "в личном чате {platform}",
  leadCapturedThreadUnnamed: "в треде {platform}",
  leadCapturedGroupUnnamed: "в группе {platform}",
  leadCapturedThread: "в треде {platform} в {where}",
  leadCapturedGroup: "в группе {platform} {where}",

  assistantGreeting:
    "Здравствуйте! Спрашивайте что угодно. Каждая ветка здесь — отдельный разговор; {command} покажет команды.",
  promptAbilities: "Что ты умеешь?",
  promptStart: "С чего начать?",
  promptSimpleTitle: "Объясни попроще",
  promptSimple: "Объясни в нескольких простых предложениях, в чём ты разбираешься.",
  statusThinking: "думает…",

  contextThread: "Ранее в этой ветке:",
  contextReply: "В ответ на:",
  contextQuestion: "Вопрос:",

  menuHelp: "Список команд",
  menuNew: "Начать здесь новый разговор",
  menuLanguage: "Показать язык ответов (администраторы: {command})",
  menuLeads: "Последние лиды; {command} включает объявления здесь",

  consoleThinking: "думаю…",
  consoleWelcome: "Общайтесь с чат-ботом: напишите вопрос или {command}, чтобы увидеть команды.",
  consoleSimulated:
    "(Ответы даёт встроенный симулятор чат-бота: задайте {url}, {key} и {uid}, чтобы подключить свой.)",
  consoleKeys: "{stop} останавливает ответ; в строке ввода {stop} или {quit} завершает работу.",
  consoleDropped:
    "({count, plural, one {# строка, набранная во время ответа, отброшена} few {# строки, набранные во время ответа, отброшены} many {# строк, набранных во время ответа, отброшены} other {# строки, набранной во время ответа, отброшены}})",
  stoppedBy: "⏹ остановлено: {name}",
  stopped: "⏹ остановлено",
  nothingToStop: "Нечего останавливать: в этой ветке сейчас не пишется ответ.",
  withdrawnBy: "⏹ отозван: {name}. На этот вопрос не будет ответа",
  withdrawn: "⏹ отозван: на этот вопрос не будет ответа",
  questionWithdrawn:
    "⏹ {count, plural, one {# ожидающий вопрос отозван.} few {# ожидающих вопроса отозваны.} many {# ожидающих вопросов отозваны.} other {# ожидающего вопроса отозваны.}}",
  stopUsage: "ожидалось {stop}",
  stopRefused: "Остановить этот ответ может только автор вопроса или администратор канала.",
  stopButton: "⏹ Стоп",
  voteThanks: "Спасибо за {mark}!",
  voteChanged: "Теперь ваш голос — {mark}. Спасибо!",
  voteTooLate: "Этот ответ слишком старый, чтобы его оценить.",
  feedbackAdminOnly: "Отзывы может смотреть только администратор этого канала.",
  feedbackUsage: "ожидалось {list} или {days} (от 1 до {max, number})",
  feedbackNoneHere:
    "За {days, plural, one {последний # день} few {последние # дня} many {последние # дней} other {последние # дня}} в этом канале нет оценок ответов.",
  feedbackNoneAll:
    "За {days, plural, one {последний # день} few {последние # дня} many {последние # дней} other {последние # дня}} ни в одном канале нет оценок ответов.",
  feedbackHere:
    "Оценки ответов в этом канале за {days, plural, one {последний # день} few {последние # дня} many {последние # дней} other {последние # дня}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  feedbackAll:
    "Оценки ответов во всех каналах за {days, plural, one {последний # день} few {последние # дня} many {последние # дней} other {последние # дня}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  helpStop: "остановить ответ, который пишется в этой ветке (автор вопроса или администратор)",
  helpFeedback:
    "посчитать 👍 и 👎 под ответами здесь (администраторы; по умолчанию за {days, plural, one {# день} few {# дня} many {# дней} other {# дня}})",
  menuStop: "Остановить ответ (в группе — ответьте на него)",
  menuFeedback: "Посчитать 👍 и 👎 под ответами здесь",
  claimButton: "Беру",
  releaseButton: "Освободить",
  claimedBy: "Взял(а) {name}, {time}",
  alreadyClaimed: "{name} уже взял(а) этот лид: {time}.",
  youHaveIt: "Этот лид уже у вас.",
  onlyClaimerReleases: "Освободить этот лид может только {name}: он у этого человека.",
  notClaimed: "Сейчас этот лид ни у кого.",
  claimUnavailable: "Этот лид здесь больше нельзя взять.",
  claimTryAgain: "Лид только что перешёл к другому: попробуйте ещё раз.",
  listedClaim: "взял(а) {name} ({time})",
  leadLabel: "{label}:",

  chatbotFailed: "{chatbot}: {reason}",
  helpChatbot: "показать, какой чат-бот отвечает здесь, и остальных",
  helpChatbotUse: "направлять новые разговоры здесь этому чат-боту (администраторы)",
  helpLeadsSubscribeChatbot: "объявлять здесь новые лиды этого чат-бота (администраторы)",
  menuChatbot: "Показать чат-бота этого чата (администраторы: {command})",
  chatbotShown:
    "Вопросы здесь получает {chatbot}. Чат-боты: {list}. Администраторы могут сменить его командой {command}.",
  chatbotShownDefault:
    "Вопросы здесь получает {chatbot}, по умолчанию. Чат-боты: {list}. Администраторы могут сменить его командой {command}.",
  chatbotSet:
    "Теперь новые разговоры здесь ведёт {chatbot}. Начатый разговор остаётся со своим чат-ботом; {new} начинает новый.",
  chatbotAdminOnly: "Выбрать чат-бота может только администратор этого канала.",
  chatbotUnknown: "Чат-бота с именем {name} нет. Чат-боты: {list}.",
  chatbotUsage: "ожидалось {show} или {use}",
  chatbotHere: "Чат-бот этого канала: {chatbot}.",
  leadsSubscribedTo: "Теперь этот канал получает новые лиды чат-бота {chatbot}.",
  leadsAlreadySubscribedTo: "Этот канал уже получает новые лиды чат-бота {chatbot}.",
  leadsUnsubscribedFrom: "Этот канал больше не получает лиды чат-бота {chatbot}.",
  leadsNotSubscribedTo: "Этот канал и не получал лиды чат-бота {chatbot}.",
  leadsOf: "Лиды чат-бота {chatbot}:",
  leadChatbot: "Чат-бот",
  feedbackOfChatbot: "{chatbot}: 👍 {up, number} · 👎 {down, number}",

  // A person of the company talks with a lead's customer through the bot (a hand-over): the
  // card's buttons and lines, what the customer is told, the lines relayed, the private replies.
  talkButton: "Поговорить",
  handBackButton: "Вернуть боту",
  handoverTalking: "{name} общается с клиентом (с {time})",
  handoverHandedBack: "Возвращено чат-боту: {time}",
  handoverJoined:
    "{name} из нашей команды теперь в этом чате. Чат-бот приостановлен, пока ему не вернут чат.",
  handoverEnded: "В этом чате снова отвечает чат-бот.",
  handoverCustomerLine: "💬 {name}: {text}",
  handoverCustomer: "Клиент",
  handoverSellerLine: "{name} (отдел продаж): {text}",
  pausedBy: "⏹ приостановлено: дальше отвечает {name} из отдела продаж",
  handoverOnlyClaimer:
    "Общаться с этим клиентом может только {name} (лид у этого человека) или администратор бота.",
  handoverClaimFirst: "Сначала возьмите лид: тогда вы сможете пообщаться с клиентом.",
  handoverNotOurs: "Разговор этого лида ведётся в чате, недоступном этому боту.",
  handoverBusy: "{name} уже общается в чате этого клиента.",
  handoverNotOpen: "Сейчас с этим клиентом никто не общается.",
  handoverOver: "Этот чат снова у чат-бота: ваше сообщение не отправлено.",
  handoverNotDelivered: "Не доставлено: {reason}",
  handBackNone: "В этом чате сейчас не общается никто из компании.",
  handBackAdminOnly: "Вернуть чат-бота в этот чат может только его администратор.",
  helpHandBack: "вернуть чат-бота в чат, который взял на себя сотрудник компании (администраторы)",
  menuHandBack: "Вернуть чат-бота в этот чат",
};
