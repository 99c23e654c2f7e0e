import type { Messages } from "../messages.ts";

export const pt: Messages = {
  noAnswer: "(sem resposta)",
  truncated: "(cortada)",
  failed: "⚠️ {reason}",
  answerCut: "resposta cortada: {reason}",
  numberInLine: "⏳ muitas perguntas agora: a sua é a número {place, number} na fila",
  busy: "⏳ O bot está muito ocupado agora: tente de novo daqui a um minuto.",

  errorUnexpected: "algo deu errado no bot",
  errorApiKey: "o chatbot recusou a chave da API ({status})",
  errorPermission:
    "o chatbot negou o acesso ({status}): conversar exige uma assinatura paga na conta do chatbot",
  errorNotFound: "o chatbot não foi encontrado ({status}): verifique a URL base e o ID do bot",
  errorBackendBusy: "o chatbot está sobrecarregado ({status}); tente de novo em instantes",
  errorBackendFailed: "o serviço do chatbot falhou ({status}); tente de novo mais tarde",
  errorBackendRefused: "o chatbot recusou o pedido ({status})",
  errorApi: "o chatbot devolveu um erro (código {code})",
  errorApiDetail: "o chatbot devolveu um erro (código {code}): {detail}",
  errorProtocol: "o chatbot enviou uma resposta que este bot não consegue ler",
  errorNoResponse: "o chatbot não respondeu a tempo",
  errorSilent: "o chatbot parou de enviar",
  errorTooLong: "o chatbot demorou mais de {duration}",
  errorUnreachable: "não foi possível contactar o chatbot",
  errorConnectionLost: "conexão perdida",
  errorInterrupted: "interrompida",
  errorStore: "o armazenamento do bot está indisponível agora; tente de novo em instantes",
  errorPlatformRateLimit: "a plataforma de chat pediu ao bot que fosse mais devagar",
  errorCannotPost: "o bot não pode publicar aqui",
  errorCannotPostBecause: "o bot não pode publicar aqui ({error})",
  errorRestarting:
    "o bot está reiniciando e não chegou à sua pergunta: faça-a de novo daqui a um minuto",
  errorSlackRefused: "o Slack recusou a resposta ({error})",
  errorSlackAdminCheck:
    "não foi possível verificar se você é administrador do espaço de trabalho ({error})",
  errorTelegramRefused: "o Telegram recusou o pedido do bot ({error})",
  errorTelegramUnreachable: "o bot não conseguiu contactar o Telegram; tente de novo em instantes",
  errorTelegramAdminCheck:
    "não foi possível verificar com o Telegram se você é administrador aqui; tente de novo",

  channelNotEnabled: "Este bot não está ativado neste canal.",
  userNotAllowed: "Desculpe, você não está na lista de pessoas que podem usar este bot.",
  emptyQuestion: "Escreva uma pergunta, por favor.",
  questionTooLong:
    "Sua pergunta tem {length, number} caracteres; o limite é {limit, number}. Encurte-a, por favor.",
  slowDown:
    "Mais devagar: você pode fazer {count, plural, one {# pergunta} other {# perguntas}} a cada {window, number} s. Tente de novo em {seconds, number} s.",
  onlyText: "Só consigo ler mensagens de texto: escreva sua pergunta, por favor.",

  helpIntro: "Pergunte o que quiser ou use um comando:",
  helpLine: "{usage}  {what}",
  helpHelp: "lista os comandos",
  helpNew: "começa uma conversa nova nesta thread",
  helpLanguage: "mostra o idioma das respostas deste canal",
  helpLanguageSet: "altera-o (administradores; {auto} redefine)",
  helpLeads: "lista os leads dos últimos dias (padrão {days, number}), num canal de leads",
  helpLeadsSubscribe: "anuncia novos leads aqui (administradores); {unsubscribe} para",
  unknownCommand: "Comando desconhecido: {command}.",
  newConversation: "Recomeçando: sua próxima pergunta inicia uma conversa nova.",
  newOutsideThread:
    "Aqui cada thread é uma conversa à parte: abra uma nova thread (mencione-me ou envie-me uma nova mensagem) para recomeçar, ou escreva {new} depois de uma menção dentro de uma thread.",
  languageNamed: "{name} ({code})",
  languageAuto: "o idioma de cada pergunta ({code})",
  languageShown:
    "Aqui as respostas estão em {language}. Administradores podem mudar isso com {command}.",
  languageShownDefault:
    "Idioma das respostas aqui: {language}, o padrão. Administradores podem mudar isso com {command}.",
  languageSet: "Agora as respostas aqui estão em {language}.",
  languageReset: "Idioma das respostas redefinido, agora aqui: {language}.",
  languageAdminOnly: "Só um administrador deste canal pode mudar o idioma das respostas.",
  languageUnknown: "código de idioma desconhecido. Códigos válidos: {codes}",

  leadsUsage: "esperado: {list}, {days} (de 1 a {max, number}), {subscribe} ou {unsubscribe}",
  leadsNotSetUp: "Os anúncios de leads não estão configurados neste bot.",
  leadsAdminOnly: "Só os administradores do bot podem ligar ou desligar os anúncios de leads.",
  leadsOnlyInLeadChannels:
    "Os leads só aparecem em canais de leads. Um administrador do bot pode tornar este um canal de leads com {command}.",
  leadsNone: "Nenhum lead {days, plural, one {no último dia} other {nos últimos # dias}}.",
  leadsTooManyToCount:
    "Leads demais para contar: o bot lê no máximo {read, number} de cada vez, e todos os que leu são anteriores {days, plural, one {ao último dia} other {aos últimos # dias}}.",
  leadsTitle:
    "{count, plural, one {# lead} other {# leads}} {days, plural, one {no último dia} other {nos últimos # dias}}, do mais recente ao mais antigo:",
  leadsTitleAtLeast:
    "Pelo menos {count, plural, one {# lead} other {# leads}} {days, plural, one {no último dia} other {nos últimos # dias}} (mais do que o bot lê de uma vez), do mais recente ao mais antigo:",
  leadsMoreAtLeast: "…e pelo menos mais {count, number}.",
  leadsMoreOlder: "…e {count, plural, one {# mais antigo} other {# mais antigos}}.",
  leadLine: "• {time}: {name} · {phone} · {email}",
  leadLineRemark: "• {time}: {name} · {phone} · {email} — “{remark}”",
  leadsConfigured: "Este canal recebe leads pela configuração do bot ({variables}); altere-a lá.",
  leadsSubscribed: "Agora este canal recebe cada novo lead.",
  leadsAlreadySubscribed: "Este canal já recebe cada novo lead.",
  leadsUnsubscribed: "Este canal não recebe mais anúncios de leads.",
  leadsNotSubscribed: "Este canal não estava recebendo anúncios de leads.",
  leadTitle: "Novo lead",
  leadFallback: "Novo lead: {name}",
  leadName: "Nome",
  leadPhone: "Telefone",
  leadEmail: "E-mail",
  leadRemark: "Observação",
  leadTime: "Data",
  leadConversation: "Conversa",
  leadCaptured: "Captado",
  leadCapturedOutside: "fora dos chats deste bot",
  leadCapturedPrivate: "num chat privado do {platform} com {name}",
  leadCapturedBusiness: "no chat do {platform} da conta comercial com {name}",
  leadCapturedPrivateUnnamed: "num chat privado do {platform}",
  leadCapturedThreadUnnamed: "num tópico do {platform}",
  leadCapturedGroupUnnamed: "num grupo do {platform}",
  leadCapturedThread: "num tópico do {platform} em {where}",
  leadCapturedGroup: "no grupo do {platform} {where}",

  assistantGreeting:
    "Olá! Pergunte o que quiser. Aqui cada thread é uma conversa à parte; {command} lista os comandos.",
  promptAbilities: "O que você sabe fazer?",
  promptStart: "Por onde eu começo?",
  promptSimpleTitle: "Explique de forma simples",
  promptSimple: "Explique em poucas frases simples sobre o que você sabe.",
  statusThinking: "está pensando…",

  contextThread: "Mensagens anteriores neste tópico:",
  contextReply: "Em resposta a:",
  contextQuestion: "Pergunta:",

  menuHelp: "Listar os comandos",
  menuNew: "Começar uma conversa nova aqui",
  menuLanguage: "Mostrar o idioma das respostas (administradores: {command})",
  menuLeads: "Listar leads recentes; {command} anuncia-os aqui",

  consoleThinking: "pensando…",
  consoleWelcome: "Converse com o chatbot: digite uma pergunta, ou {command} para os comandos.",
  consoleSimulated:
    "(As respostas vêm do chatbot simulado embutido: defina {url}, {key} e {uid} para usar o seu.)",
  consoleKeys: "{stop} interrompe uma resposta; no prompt, {stop} ou {quit} sai.",
  consoleDropped:
    "({count, plural, one {# linha digitada durante a resposta foi descartada} other {# linhas digitadas durante a resposta foram descartadas}})",
  stoppedBy: "⏹ interrompida por {name}",
  stopped: "⏹ interrompida",
  nothingToStop: "Nada para interromper: nenhuma resposta está sendo escrita nesta conversa.",
  withdrawnBy: "⏹ retirada por {name}: esta pergunta não será respondida",
  withdrawn: "⏹ retirada: esta pergunta não será respondida",
  questionWithdrawn:
    "⏹ {count, plural, one {Sua pergunta em espera foi retirada.} other {# perguntas em espera foram retiradas.}}",
  stopUsage: "esperado {stop}",
  stopRefused:
    "Só quem fez a pergunta ou um administrador deste canal pode interromper esta resposta.",
  stopButton: "⏹ Parar",
  voteThanks: "Obrigado pelo seu {mark}!",
  voteChanged: "Seu voto agora é {mark}. Obrigado!",
  voteTooLate: "Esta resposta é antiga demais para ser avaliada.",
  feedbackAdminOnly: "Só um administrador deste canal pode ver as avaliações.",
  feedbackUsage: "esperado {list} ou {days} (de 1 a {max, number})",
  feedbackNoneHere:
    "Nenhum voto nas respostas deste canal {days, plural, one {no último dia} other {nos últimos # dias}}.",
  feedbackNoneAll:
    "Nenhum voto nas respostas de nenhum canal {days, plural, one {no último dia} other {nos últimos # dias}}.",
  feedbackHere:
    "Votos nas respostas deste canal {days, plural, one {no último dia} other {nos últimos # dias}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  feedbackAll:
    "Votos nas respostas de todos os canais {days, plural, one {no último dia} other {nos últimos # dias}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  helpStop:
    "interrompe a resposta em andamento nesta conversa (quem perguntou ou um administrador)",
  helpFeedback:
    "conta os 👍 e 👎 nas respostas daqui (administradores; padrão {days, plural, one {# dia} other {# dias}})",
  menuStop: "Interromper a resposta em andamento (num grupo, responda a ela)",
  menuFeedback: "Contar os 👍 e 👎 nas respostas daqui",
  claimButton: "Eu assumo",
  releaseButton: "Liberar",
  claimedBy: "Assumido por {name} em {time}",
  alreadyClaimed: "{name} já assumiu este lead, em {time}.",
  youHaveIt: "Este lead já é seu.",
  onlyClaimerReleases: "Só {name}, que assumiu este lead, pode liberá-lo.",
  notClaimed: "Ninguém está com este lead agora.",
  claimUnavailable: "Este lead não pode mais ser assumido aqui.",
  claimTryAgain: "O lead acabou de mudar de mãos: tente de novo.",
  listedClaim: "assumido por {name} ({time})",
  leadLabel: "{label}:",

  chatbotFailed: "{chatbot}: {reason}",
  helpChatbot: "mostra qual chatbot responde aqui, e os outros",
  helpChatbotUse: "envia as conversas novas daqui para esse chatbot (administradores)",
  helpLeadsSubscribeChatbot: "anuncia aqui os novos leads desse chatbot (administradores)",
  menuChatbot: "Mostrar o chatbot deste chat (administradores: {command})",
  chatbotShown:
    "As perguntas daqui vão para {chatbot}. Chatbots: {list}. Administradores podem mudar isso com {command}.",
  chatbotShownDefault:
    "As perguntas daqui vão para {chatbot}, o padrão. Chatbots: {list}. Administradores podem mudar isso com {command}.",
  chatbotSet:
    "Agora as conversas novas daqui vão para {chatbot}. Uma conversa em andamento continua com o seu chatbot; {new} começa uma nova.",
  chatbotAdminOnly: "Só um administrador deste canal pode escolher o chatbot dele.",
  chatbotUnknown: "Nenhum chatbot se chama {name}. Chatbots: {list}.",
  chatbotUsage: "esperado: {show} ou {use}",
  chatbotHere: "Chatbot deste canal: {chatbot}.",
  leadsSubscribedTo: "Agora este canal recebe os novos leads de {chatbot}.",
  leadsAlreadySubscribedTo: "Este canal já recebe os novos leads de {chatbot}.",
  leadsUnsubscribedFrom: "Este canal não recebe mais os leads de {chatbot}.",
  leadsNotSubscribedTo: "Este canal não estava recebendo os leads de {chatbot}.",
  leadsOf: "Leads de {chatbot}:",
  leadChatbot: "Chatbot",
  feedbackOfChatbot: "{chatbot}: 👍 {up, number} · 👎 {down, number}",

  // A person of the company talks with a lead's customer through the bot (a hand-over): the
  // card's buttons and lines, what the customer is told, the lines relayed, the private replies.
  talkButton: "Conversar",
  handBackButton: "Devolver",
  handoverTalking: "{name} está conversando com o cliente (desde {time})",
  handoverHandedBack: "Devolvido ao chatbot em {time}",
  handoverJoined:
    "{name}, da nossa equipe, entrou neste chat. O chatbot fica pausado até que o chat seja devolvido a ele.",
  handoverEnded: "O chatbot voltou a responder neste chat.",
  handoverCustomerLine: "💬 {name}: {text}",
  handoverCustomer: "Cliente",
  handoverSellerLine: "{name} (Vendas): {text}",
  pausedBy: "⏹ pausada: {name}, da equipe de Vendas, assumiu a conversa",
  handoverOnlyClaimer:
    "Só {name}, que assumiu este lead, ou um administrador do bot pode falar com este cliente.",
  handoverClaimFirst: "Assuma o lead primeiro: depois você pode conversar com o cliente.",
  handoverNotOurs: "A conversa deste lead não está em um chat que este bot consegue alcançar.",
  handoverBusy: "{name} já está conversando no chat deste cliente.",
  handoverNotOpen: "Ninguém está conversando com este cliente agora.",
  handoverOver: "Este chat voltou para o chatbot: sua mensagem não foi enviada.",
  handoverNotDelivered: "Não entregue: {reason}",
  handBackNone: "Ninguém da empresa está conversando neste chat.",
  handBackAdminOnly: "Só um administrador deste chat pode devolvê-lo ao chatbot.",
  helpHandBack: "devolve ao chatbot um chat que alguém da empresa assumiu (administradores)",
  menuHandBack: "Devolver este chat ao chatbot",
};
